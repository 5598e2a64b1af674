import { MIMEType } from 'whatwg-mimetype';

export interface ContentType {
  essence: string;
  charset?: string;
  action?: string;
}

/** Lenient RFC 9110 parse (spacing, case, quoting); undefined when there is no usable type. */
export function parseContentType(header: string | undefined): ContentType | undefined {
  if (!header) return undefined;
  const parsed = MIMEType.parse(header);
  if (!parsed) return undefined;
  return {
    essence: parsed.essence,
    charset: parsed.parameters.get('charset')?.toLowerCase(),
    action: parsed.parameters.get('action'),
  };
}
