import Negotiator from 'negotiator';

/** The content codings the service compresses with. */
export type Coding = 'br' | 'gzip';

// Tried in this order on a tie: br, then gzip (x-gzip is gzip, RFC 9110 §8.4.1.3), then identity.
const CODINGS = ['br', 'gzip', 'x-gzip', 'identity'] as const;

/**
 * The coding to answer in, from the request's Accept-Encoding (RFC 9110 §12.5.3, as negotiator
 * reads it), or undefined for none (identity). No header gets identity; `br;q=0` refuses br; `*`
 * stands for every coding not named; identity, unless named, ranks with the least preferred coding
 * named. When every coding is refused the answer is sent as it is, which RFC 9110 allows in place
 * of a 406.
 */
export function preferredCoding(header: string | undefined): Coding | undefined {
  if (!header) return undefined;
  const coding = new Negotiator({ headers: { 'accept-encoding': header } }).encoding(CODINGS, { preferred: CODINGS });
  return coding === 'br' ? 'br' : coding === 'gzip' || coding === 'x-gzip' ? 'gzip' : undefined;
}
