// A request body decoded in its declared charset (src/http/body.ts decodeBody): UTF-8 when none,
// a byte-order mark dropped, and bytes that do not decode refused.

import { decodeBody } from '../src/http/body';

const utf8 = (s: string) => Buffer.from(s, 'utf8');

test('UTF-8, declared or not: ASCII as it is, other characters decoded, a byte-order mark dropped', () => {
  const ascii = '<?xml version="1.0"?><a>DevKey_-09 \t\n</a>';
  for (const charset of [undefined, 'utf-8', 'utf8']) {
    expect(decodeBody(utf8(ascii), charset)).toBe(ascii);
    expect(decodeBody(utf8('<a>Ñandú © 🐉</a>'), charset)).toBe('<a>Ñandú © 🐉</a>');
    expect(decodeBody(utf8('\uFEFF<a>x</a>'), charset)).toBe('<a>x</a>');
    expect(decodeBody(Buffer.alloc(0), charset)).toBe('');
  }
});

test('bytes that are not UTF-8 are BadRequest; another declared charset is decoded as that one', () => {
  for (const bytes of [[0x3c, 0x61, 0x3e, 0xd1, 0x3c], [0xff], [0xe2, 0x82]]) {
    expect(() => decodeBody(Buffer.from(bytes), undefined)).toThrow(expect.objectContaining({ code: 'BadRequest' }));
  }
  expect(decodeBody(Buffer.from([0x3c, 0x61, 0x3e, 0xd1, 0x3c]), 'iso-8859-1')).toBe('<a>Ñ<');
  expect(decodeBody(Buffer.from('<a>x</a>', 'utf16le'), 'utf-16le')).toBe('<a>x</a>');
  expect(() => decodeBody(utf8('x'), 'x-unknown')).toThrow(expect.objectContaining({ code: 'UnsupportedMediaType' }));
});
