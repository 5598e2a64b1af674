type Hash64 = (bytes: Uint8Array) => bigint;

let hash64: Hash64 | undefined;

/**
 * Makes bodyHash usable: xxhash-wasm's module is compiled asynchronously, once a process
 * (createApp waits for it before it answers anything). Imported, not required: the package's
 * types are an ES module's (its CommonJS build exports the same function).
 */
export async function loadBodyHash(): Promise<void> {
  hash64 ??= (await (await import('xxhash-wasm')).default()).h64Raw;
}

/**
 * The body's 64-bit XXH64, as 16 hex digits: what an entity tag names its bytes by. XXH64 is not a
 * cryptographic hash, and need not be: a tag only tells a client whether the bytes it holds are
 * still the ones answered (a chance of 2^-64 that two different answers share one), and a client
 * gains nothing from forging one. SHA-256 took 44 us of the 1.1 ms an uncached 75 KB
 * GetMonsterGlobals(100) answer cost; XXH64 takes 10 us (docs/performance.md, issue 18).
 */
export function bodyHash(body: string | Uint8Array): string {
  if (!hash64) throw new Error('bodyHash before loadBodyHash');
  return hash64(typeof body === 'string' ? Buffer.from(body) : body).toString(16).padStart(16, '0');
}
