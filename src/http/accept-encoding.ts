/** The content codings the service compresses with. */
export type Coding = 'br' | 'gzip';

// A qvalue (RFC 9110 §12.4.2): 0 to 1 with at most three decimals.
const WEIGHT = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

/**
 * The coding to answer in, from the request's Accept-Encoding (RFC 9110 §12.5.3), or undefined
 * for none (identity). No header, or nothing but identity, gets identity; `br;q=0` refuses br;
 * `*` stands for every coding not named. Identity, unless named, ranks with the least preferred
 * coding named (as a client listing only `gzip;q=0.5` still takes gzip first). The highest weight
 * wins; on a tie br, then gzip, then identity. When every coding is refused (`identity;q=0`, `*;q=0`)
 * the answer is sent as it is, which RFC 9110 allows in place of a 406.
 */
export function preferredCoding(header: string | undefined): Coding | undefined {
  if (!header) return undefined;
  // Clients send a handful of distinct values: each is parsed once (a string split costs microseconds).
  const known = chosen.get(header);
  if (known !== undefined) return known || undefined;
  if (chosen.size >= CHOSEN_MAX) chosen.clear();
  const coding = parse(header);
  chosen.set(header, coding ?? '');
  return coding;
}

const CHOSEN_MAX = 256;
/** The coding chosen for each header value seen ('' for none). */
const chosen = new Map<string, Coding | ''>();

function parse(header: string): Coding | undefined {
  let br = -1;
  let gzip = -1;
  let identity = -1;
  let star = -1;
  let least = 1;
  for (const element of header.split(',')) {
    const semi = element.indexOf(';');
    const name = (semi < 0 ? element : element.slice(0, semi)).trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    if (semi >= 0) {
      const weight = WEIGHT.exec(element.slice(semi + 1).trim());
      // A weight that is not a qvalue: the element is not understood, so it accepts nothing.
      if (!weight) continue;
      q = Number(weight[1]);
    }
    if (q < least) least = q;
    // The first of a repeated name counts.
    if (name === 'br') br = br < 0 ? q : br;
    else if (name === 'gzip' || name === 'x-gzip') gzip = gzip < 0 ? q : gzip;
    else if (name === 'identity') identity = identity < 0 ? q : identity;
    else if (name === '*') star = star < 0 ? q : star;
  }
  const qBr = br >= 0 ? br : Math.max(star, 0);
  const qGzip = gzip >= 0 ? gzip : Math.max(star, 0);
  const qIdentity = identity >= 0 ? identity : star >= 0 ? star : least;
  if (qBr > 0 && qBr >= qGzip && qBr >= qIdentity) return 'br';
  if (qGzip > 0 && qGzip >= qIdentity) return 'gzip';
  return undefined;
}
