// How a request's Accept-Encoding chooses the coding of an answer (RFC 9110 §12.5.3, through
// negotiator) and how its If-None-Match is matched against an answer's entity tag (§13.1.2, weak
// comparison, through fresh).

import { preferredCoding } from '../src/http/accept-encoding';
import { clientHasTag } from '../src/http/if-none-match';

describe('Accept-Encoding', () => {
  test.each([
    // no header, or only identity: as it is
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['compress, deflate', undefined],
    // one coding
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    // weights
    ['gzip;q=0.5, br;q=0.9', 'br'],
    ['gzip;q=0.9, br;q=0.5', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0', undefined],
    ['gzip;q=0', undefined],
    ['br;q=0.000, gzip;q=0.001', 'gzip'],
    ['gzip ; q=0.5', 'gzip'],
    ['gzip;Q=1.000', 'gzip'],
    ['gzip;q=0.5', 'gzip'],
    ['identity;q=1, gzip;q=0.5', undefined],
    ['identity;q=0.4, gzip;q=0.5', 'gzip'],
    ['gzip;q=0.5, deflate;q=0.1', 'gzip'],
    // ties: br, then gzip, then identity
    ['gzip, br', 'br'],
    ['gzip;q=0.8, br;q=0.8, identity;q=0.8', 'br'],
    ['gzip, identity', 'gzip'],
    // *
    ['*', 'br'],
    ['*;q=0.5, gzip', 'gzip'],
    ['*;q=0, gzip', 'gzip'],
    ['*;q=0', undefined],
    ['br;q=0, *', 'gzip'],
    ['identity, *;q=0', undefined],
    // nothing acceptable: sent as it is (RFC 9110 allows that in place of a 406)
    ['identity;q=0', undefined],
    ['identity;q=0, br;q=0, gzip;q=0', undefined],
    // negotiator reads any number as a weight and ignores other parameters
    ['gzip;q=2', 'gzip'],
    ['gzip;q=0.5555', 'gzip'],
    ['gzip;q=abc, br;q=0.1', 'br'],
    ['br;level=11', 'br'],
    // of a repeated name, the element that accepts most counts
    ['br;q=0, br', 'br'],
    [' , ,gzip,, ', 'gzip'],
  ])('%j -> %s', (header, coding) => {
    expect(preferredCoding(header)).toBe(coding);
  });

  test('many distinct values are each parsed right', () => {
    for (let i = 0; i < 600; i++) {
      const q = (i % 1000) / 1000;
      expect(preferredCoding(`gzip;q=${q}, br;q=0.5, x-${i}`)).toBe(q > 0.5 ? 'gzip' : 'br');
    }
  });
});

describe('If-None-Match', () => {
  const tag = '"abc-gzip"';
  test.each([
    ['"abc-gzip"', true],
    ['W/"abc-gzip"', true],
    ['*', true],
    ['"x", "abc-gzip"', true],
    ['"x",W/"abc-gzip" , "y"', true],
    ['"a,b", "abc-gzip"', true],
    ['"abc"', false],
    ['"abc-br"', false],
    ['"ABC-GZIP"', false],
    ['abc-gzip', false],
    ['"abc-gzip', false],
    ['"x", *', false],
    ['', false],
    ['w/"abc-gzip"', false],
  ])('%j names "abc-gzip": %s', (header, names) => {
    expect(clientHasTag({ 'if-none-match': header }, tag)).toBe(names);
  });

  test('no condition, or Cache-Control: no-cache, asks for the answer itself', () => {
    expect(clientHasTag({}, tag)).toBe(false);
    expect(clientHasTag({ 'if-modified-since': 'Tue, 24 Nov 2026 08:00:00 GMT' }, tag)).toBe(false);
    expect(clientHasTag({ 'if-none-match': tag, 'cache-control': 'no-cache' }, tag)).toBe(false);
  });
});
