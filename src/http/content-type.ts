import { LRUCache } from 'lru-cache';
import { MIMEType } from 'whatwg-mimetype';

export interface ContentType {
  essence: string;
  charset?: string;
  action?: string;
}

// Clients send the same few Content-Type headers again and again; parsing one is a few percent
// of a cached answer's cost. Results are frozen: callers share them.
const parsedHeaders = new LRUCache<string, Readonly<ContentType>>({ max: 256 });
const HEADER_MAX = 1024;
/** A header with no usable type, as cached. */
const UNUSABLE: Readonly<ContentType> = Object.freeze({ essence: '' });

/** Lenient RFC 9110 parse (spacing, case, quoting); undefined when there is no usable type. */
export function parseContentType(header: string | undefined): Readonly<ContentType> | undefined {
  if (!header) return undefined;
  let type = parsedHeaders.get(header);
  if (type === undefined) {
    const parsed = MIMEType.parse(header);
    type = parsed
      ? Object.freeze({ essence: parsed.essence, charset: parsed.parameters.get('charset')?.toLowerCase(), action: parsed.parameters.get('action') })
      : UNUSABLE;
    // Long, odd headers are parsed every time rather than filling the cache.
    if (header.length <= HEADER_MAX) parsedHeaders.set(header, type);
  }
  return type === UNUSABLE ? undefined : type;
}
