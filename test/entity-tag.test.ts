// The hash an entity tag names an answer's bytes by (src/http/entity-tag.ts): XXH64 with seed 0,
// as 16 hex digits, the same for a body given as text or as its UTF-8 bytes.
import { bodyHash, loadBodyHash } from '../src/http/entity-tag';

beforeAll(loadBodyHash);

test.each([
  // The reference implementation's values (xxhsum -H1).
  ['', 'ef46db3751d8e999'],
  ['abc', '44bc2cf5ad770999'],
  ['Nobody inspects the spammish repetition', 'fbcea83c8a378bf1'],
])('XXH64 of %j is %s', (text, hex) => {
  expect(bodyHash(text)).toBe(hex);
  expect(bodyHash(Buffer.from(text))).toBe(hex);
});

test('text is hashed as its UTF-8 bytes, and a hash with leading zeros keeps its 16 digits', () => {
  const text = 'Ærøskøbing – 東京 🐉';
  expect(bodyHash(text)).toBe(bodyHash(Buffer.from(text, 'utf8')));
  expect(bodyHash(text)).not.toBe(bodyHash(Buffer.from(text, 'latin1')));
  const hashes = Array.from({ length: 2000 }, (_, i) => bodyHash(`answer ${i}`));
  expect(hashes.every((h) => /^[0-9a-f]{16}$/.test(h))).toBe(true);
  expect(hashes.some((h) => h.startsWith('0'))).toBe(true);
  expect(new Set(hashes).size).toBe(hashes.length);
});
