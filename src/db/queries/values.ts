/** SQL text of a timestamptz column as UTC with microseconds; `xsdDateTime` trims it. */
export const utcText = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

/** `2026-11-21T18:04:05.250000` -> `2026-11-21T18:04:05.25Z`; no fraction when it is zero. */
export function xsdDateTime(utc: string): string {
  const [whole, fraction = ''] = utc.split('.');
  const digits = fraction.replace(/0+$/, '');
  return digits ? `${whole}.${digits}Z` : `${whole}Z`;
}

/** Description of a record, or null when it has neither text nor picture (written xsi:nil). */
export function description(text: string | null, picture: string | null): { Description?: string; ItemPictureURL?: string } | null {
  if (text === null && picture === null) return null;
  // Absent fields stay undefined (omitted); no object spreads: this runs for every record read.
  return { Description: text ?? undefined, ItemPictureURL: picture ?? undefined };
}
