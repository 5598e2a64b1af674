import fresh from 'fresh';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether a GET's conditional headers (If-None-Match, RFC 9110 §13.1.2, by the weak comparison:
 * `W/"x"` matches `"x"`) say the client holds the answer with entity tag `etag`: then it is
 * answered 304. `Cache-Control: no-cache` asks for the answer itself (fresh's rule).
 */
export function clientHasTag(headers: IncomingHttpHeaders, etag: string): boolean {
  return fresh(headers, { etag });
}
