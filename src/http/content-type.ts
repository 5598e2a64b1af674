import { MIMEType } from 'whatwg-mimetype';

export interface ContentType {
  readonly essence: string;
  readonly charset?: string;
  readonly action?: string;
}

// A client sends the same Content-Type on every call, and whatwg-mimetype's parse costs about
// 4 µs, 2% of a worker's CPU on cached SOAP 1.1 GetMonster at 64 connections (issue 21's
// profile). The last header and its parse are kept, so a repeated header is not parsed again.
let lastHeader: string | undefined;
let lastParsed: ContentType | undefined;

/**
 * Lenient RFC 9110 parse (spacing, case, quoting); undefined when there is no usable type. The
 * router parses a call's Content-Type once and hands it on in res.locals.contentType.
 */
export function parseContentType(header: string | undefined): ContentType | undefined {
  if (!header) return undefined;
  if (header === lastHeader) return lastParsed;
  const parsed = MIMEType.parse(header);
  lastParsed = parsed ? Object.freeze({ essence: parsed.essence, charset: parsed.parameters.get('charset')?.toLowerCase(), action: parsed.parameters.get('action') }) : undefined;
  lastHeader = header;
  return lastParsed;
}
