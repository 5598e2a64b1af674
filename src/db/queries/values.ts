/** SQL text of a timestamptz column as UTC with microseconds; `xsdDateTime` trims it. */
export const utcText = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

/** `2026-11-21T18:04:05.250000` -> `2026-11-21T18:04:05.25Z`; no fraction when it is zero. */
export function xsdDateTime(utc: string): string {
  const dot = utc.indexOf('.');
  if (dot < 0) return `${utc}Z`;
  // Runs for every global read: the fraction's trailing zeros trimmed by hand, no split or regex.
  let end = utc.length;
  while (end > dot + 1 && utc.charCodeAt(end - 1) === 48 /* 0 */) end--;
  return `${utc.slice(0, end === dot + 1 ? dot : end)}Z`;
}

/** Description of a record, or null when it has neither text nor picture (written xsi:nil). */
export function description(text: string | null, picture: string | null): { Description?: string; ItemPictureURL?: string } | null {
  if (text === null && picture === null) return null;
  // Absent fields stay undefined (omitted); no object spreads: this runs for every record read.
  return { Description: text ?? undefined, ItemPictureURL: picture ?? undefined };
}
