// HTTP GET and POST parameters: the pairs the service reads from a query or a form are the
// pairs URLSearchParams reads, in order, whatever the text (the split without it is only taken
// when there is nothing to decode).

import fc from 'fast-check';
import { textPairs } from '../src/bindings/http-get-post';

const asURLSearchParams = (text: string) => [...new URLSearchParams(text)];
const read = (text: string) => [...textPairs(text)].map(([k, v]) => [k, v]);

test('the pairs of urlencoded text are those URLSearchParams reads', () => {
  const examples = [
    '', '&', '&&', '=', '==', 'a', 'a=', '=b', 'a=b', 'a=b=c', 'a=b&', '&a=b', 'a=b&&c=d', 'a&b=&=c',
    'DevID=1&DevKey=abc-_.~&MonsterID=7', 'a=é&ü=ß', 'a=%41', 'a=%zz', 'a=1+2', '%3D=%26', 'a=b&a=c', '?a=b', '??a=b', '?', `${'a&'.repeat(1000)}b=c&d`,
  ];
  for (const text of examples) expect({ text, pairs: read(text) }).toEqual({ text, pairs: asURLSearchParams(text) });
  const piece = fc.constantFrom('a', 'DevID', '1', '=', '&', '%', '%4', '%41', '+', ' ', 'é', '😀', '?', '#', ';');
  fc.assert(fc.property(fc.array(piece, { maxLength: 20 }).map((p) => p.join('')), (text) => {
    expect(read(text)).toEqual(asURLSearchParams(text));
  }), { numRuns: 2000 });
});
