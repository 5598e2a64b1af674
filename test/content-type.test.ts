import { parseContentType } from '../src/http/content-type';

// The parse keeps its last header: each answer must still be that of the header it was given.
test('each Content-Type gets its own parse, whatever was parsed before it', () => {
  const soap11 = 'text/xml; charset=UTF-8';
  const soap12 = 'application/soap+xml; charset=utf-8; action="http://tempuri.org/GetMonster"';
  const expected = {
    [soap11]: { essence: 'text/xml', charset: 'utf-8', action: undefined },
    [soap12]: { essence: 'application/soap+xml', charset: 'utf-8', action: 'http://tempuri.org/GetMonster' },
    'not a type': undefined,
    'TEXT/XML': { essence: 'text/xml', charset: undefined, action: undefined },
  };
  const order = [soap11, soap11, soap12, soap11, 'not a type', 'not a type', soap12, 'TEXT/XML', soap11];
  expect(order.map(parseContentType)).toEqual(order.map((h) => expected[h as keyof typeof expected]));
  expect(parseContentType(undefined)).toBeUndefined();
  expect(parseContentType('')).toBeUndefined();
});

test('a parse handed out cannot be changed for the next caller', () => {
  const first = parseContentType('text/xml; charset=utf-8')!;
  expect(() => { (first as { charset?: string }).charset = 'latin1'; }).toThrow(TypeError);
  expect(parseContentType('text/xml; charset=utf-8')).toEqual({ essence: 'text/xml', charset: 'utf-8', action: undefined });
});
