// A dateTime as ASP.NET's JavaScriptSerializer writes a DateTime (ASMX ScriptService, CONTRACT §3):
// the JSON string `"\/Date(<ms>)\/"`, <ms> the milliseconds since 1970-01-01T00:00:00Z as
// `(utc.Ticks - epochTicks) / 10000` in C#: the sub-millisecond part is cut toward zero, so an
// instant before 1970 with a fraction rounds up (-0.5 ms is 0, -1.5 ms is -1). The escaped `\/`
// is what ASP.NET AJAX and JavaScriptSerializer look for to turn the string back into a date.

// The XSD dateTime text of the queries (src/db/queries/values.ts): UTC, `Z`, any fraction.
const XSD_UTC = /^(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?Z$/;

/** Milliseconds since 1970 UTC of an XSD UTC dateTime, the fraction beyond them cut toward zero. */
export function aspNetMilliseconds(xsd: string): number {
  const m = XSD_UTC.exec(xsd);
  if (!m) throw new Error(`dateTime ${xsd} is not UTC XSD text`);
  const [, y, mo, d, h, mi, s, fraction = ''] = m;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const whole = date.getTime();
  const ms = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const beyond = /[1-9]/.test(fraction.slice(3));
  // Before 1970 a part of a millisecond beyond them rounds up, toward zero.
  return whole + ms + (whole < 0 && beyond ? 1 : 0);
}

/** How a client reads the milliseconds back from the parsed string (shown on the help page). */
export const ASP_NET_DATE = /^\/Date\((-?\d+)\)\/$/;

/** The JSON text (quotes included) of an XSD UTC dateTime as JavaScriptSerializer writes it. */
export const aspNetDate = (xsd: string): string => `"\\/Date(${aspNetMilliseconds(xsd)})\\/"`;
