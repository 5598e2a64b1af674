import { MIMEType } from 'whatwg-mimetype';

export interface ContentType {
  essence: string;
  charset?: string;
  action?: string;
}

/**
 * Lenient RFC 9110 parse (spacing, case, quoting); undefined when there is no usable type. The
 * router parses a call's Content-Type once and hands it on in res.locals.contentType.
 */
export function parseContentType(header: string | undefined): ContentType | undefined {
  if (!header) return undefined;
  const parsed = MIMEType.parse(header);
  return parsed ? { essence: parsed.essence, charset: parsed.parameters.get('charset')?.toLowerCase(), action: parsed.parameters.get('action') } : undefined;
}
