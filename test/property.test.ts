// Property-based: whatever a client sends through any binding, the answer is a well-formed
// result or error document with a status from the contract's set, in bounded time, and never the
// service's own fault; the service still answers a valid call afterwards.

import path from 'node:path';
import fc from 'fast-check';
import { startService, type TestService } from './support/service';
import { call, envelope, envelopeAround, paramsXml, readError, readResult, send, soapContentType, SOAP11_NS, SOAP12_NS, WEAPONS, HUNTING, type Answer, type BindingName } from './support/bindings';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.close());

const RUNS = 150;
/** "Bounded time": a hang or a runaway (a backtracking pattern, a loop) exceeds it; a loaded machine does not. */
const BOUND_MS = 10_000;
const STATUSES: Record<BindingName, number[]> = {
  soap11: [200, 500, 413],
  soap12: [200, 400, 500, 413],
  get: [200, 400, 403, 404, 413, 431],
  post: [200, 400, 403, 404, 413, 415],
};
const FAULT_CODES: Record<'soap11' | 'soap12', string[]> = {
  soap11: ['soap:Client', 'soap:VersionMismatch'],
  soap12: ['env:Sender', 'env:VersionMismatch'],
};
const CALLER_CODES = ['MissingParameter', 'InvalidParameter', 'AuthenticationFailed', 'NotFound', 'UnknownOperation', 'MethodNotAllowed',
  'BadRequest', 'VersionMismatch', 'UnsupportedMediaType', 'RequestTooLarge'];
/** This checkout's folder, wherever it is: a path of the service's files in an answer is a leak. */
const CHECKOUT = new RegExp(path.resolve(__dirname, '..').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
const LEAK = [/\bat .*:\d+:\d+/, /node_modules/, CHECKOUT, /\bselect\b.+\bfrom\b/i];

const creds = () => ({ DevID: String(svc.key.devId), DevKey: svc.key.devKey });

/** What each binding answered, by status and error code: the generators must reach them all. */
const seen: Record<BindingName, Set<string>> = { soap11: new Set(), soap12: new Set(), get: new Set(), post: new Set() };

/** Checks one answer against the contract for the binding. */
function check(binding: BindingName, answer: Answer, what: string) {
  seen[binding].add(String(answer.status));
  const context = `${binding} ${what.slice(0, 300)} -> ${answer.status} ${answer.body.slice(0, 300)}`;
  if (!STATUSES[binding].includes(answer.status)) throw new Error(`status outside the set: ${context}`);
  if (answer.ms > BOUND_MS) throw new Error(`took ${answer.ms} ms: ${context}`);
  if (!answer.headers.get('x-request-id') && answer.status !== 431) throw new Error(`no X-Request-Id: ${context}`);
  if (answer.status === 431) return; // Node's own refusal of an oversized head, before the service.
  const type = answer.headers.get('content-type');
  if (answer.status === 200) {
    const root = readResult(answer.body); // throws when not well-formed
    if (!root) throw new Error(`no result: ${context}`);
    return;
  }
  let error;
  try {
    error = readError(answer.body);
  } catch (e) {
    throw new Error(`not a fault or error document (${(e as Error).message}): ${context}`);
  }
  seen[binding].add(error.code);
  if (!CALLER_CODES.includes(error.code)) throw new Error(`not a caller's error: ${context}`);
  if (binding === 'soap11' || binding === 'soap12') {
    if (type !== soapContentType(binding === 'soap11' ? '1.1' : '1.2')) throw new Error(`content type ${type}: ${context}`);
    if (!FAULT_CODES[binding].includes(error.faultCode!)) throw new Error(`fault code ${error.faultCode}: ${context}`);
  } else if (type !== 'text/xml; charset=utf-8' || error.faultCode !== undefined) {
    throw new Error(`not a ServiceError document: ${context}`);
  }
  for (const leak of LEAK) if (leak.test(answer.body)) throw new Error(`leak ${leak}: ${context}`);
}

afterAll(() => {
  if (process.env.SHOW_SEEN) console.log(Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, [...v].sort()])));
});

/** The generators reached results and several kinds of error, not one error over and over. */
function expectVariety(answers: Set<string>) {
  expect(answers).toContain('200');
  expect([...answers].filter((a) => CALLER_CODES.includes(a)).length).toBeGreaterThanOrEqual(4);
}

async function stillServes(binding: BindingName) {
  const answer = await call(svc.url, binding, WEAPONS, 'GetWeapons', { ...creds(), SearchWord: 'a' });
  expect(answer.status).toBe(200);
  expect(readResult(answer.body).children.length).toBeGreaterThan(0);
}

// ---- generated text ----

const NAMES = ['DevID', 'DevKey', 'SearchWord', 'MonsterID', 'NumberOfGlobals', 'playerID', 'LandareaID', 'searchword', 'x', ''];
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.string({ unit: 'binary-ascii', maxLength: 120 }),
  fc.constantFrom('', ' ', '0', '-1', '2147483647', '2147483648', '-2147483649', '1e3', '0x1F', ' 7 ', '+7', '%', '_', '\\', '\u0000', "'; DROP TABLE weapons; --", 'a'.repeat(101), '😀'.repeat(100)),
  fc.integer().map(String),
);
const paramValue = fc.oneof(anyText, fc.constant('@devid'), fc.constant('@devkey'));
const resolve = (v: string) => (v === '@devid' ? String(svc.key.devId) : v === '@devkey' ? svc.key.devKey : v);
const pairs = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 12 })), paramValue), { maxLength: 8 })
  .map((ps) => ps.map(([k, v]) => [k, resolve(v)] as [string, string]));
// Mostly with a valid credential, so the generated parameters get past it to the operation.
const withCreds = fc.oneof(
  { weight: 3, arbitrary: pairs.map((ps) => [['DevID', String(svc.key.devId)], ['DevKey', svc.key.devKey], ...ps] as [string, string][]) },
  { weight: 1, arbitrary: pairs },
);
const OPS = ['GetWeapons', 'GetMonster', 'GetMonsterGlobals', 'GetPlayerGlobals', 'GetLandareaGlobals', 'GetAuctionCategories', 'FindItems', 'getweapons', 'Nope'];
const ENDPOINT_OF: Record<string, string> = {
  GetWeapons: WEAPONS, GetMonster: HUNTING, GetMonsterGlobals: HUNTING, GetPlayerGlobals: HUNTING, GetLandareaGlobals: HUNTING,
  GetAuctionCategories: '/api/auction.asmx', FindItems: '/api/item.asmx',
};
const PATHS = [WEAPONS, HUNTING, '/api/auction.asmx', '/api/item.asmx', '/API/WEAPONS.ASMX', '/api/nothing.asmx', '/'];
/** An endpoint path and an operation: mostly a real pair, else anything. */
const target = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...Object.entries(ENDPOINT_OF)).map(([op, where]) => ({ where, op })) },
  { weight: 1, arbitrary: fc.record({ where: fc.constantFrom(...PATHS), op: fc.oneof(fc.constantFrom(...OPS), fc.string({ unit: 'binary', minLength: 1, maxLength: 20 })) }) },
);
/** A SOAP endpoint (a path that is no endpoint is a plain 404, checked in the HTTP properties). */
const soapPath = fc.oneof({ weight: 3, arbitrary: fc.constant(WEAPONS) }, { weight: 1, arbitrary: fc.constantFrom(HUNTING, '/api/auction.asmx', '/api/item.asmx', '/API/WEAPONS.ASMX') });

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const attrEscape = (s: string) => xmlEscape(s).replace(/"/g, '&quot;');

// ---- generated envelopes ----

const ENTITY_REFS = ['&xxe;', '&lt;', '&#0;', '&#x110000;', '&#65;', '&amp;', '&', '&#xD800;', '&unknown;', '&#x1;', '&quot;', ']]>', '<![CDATA[x]]>', '<!-- c -->'];
const PROLOGS = ['', '<?xml version="1.0"?>', '<?xml version="1.0" encoding="utf-8"?>', '<?xml version="1.1"?>', '<?xml version="1.0" encoding="iso-8859-1"?>',
  '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>',
  '<?xml-stylesheet href="x"?>', '\uFEFF', ' \n'];

function validEnvelope(version: '1.1' | '1.2') {
  return fc.record({ op: fc.constantFrom(...OPS), ps: withCreds })
    .map(({ op, ps }) => envelope(version, op, Object.fromEntries(ps.filter(([k]) => /^[A-Za-z_][\w.-]*$/.test(k)))));
}

function envelopes(version: '1.1' | '1.2'): fc.Arbitrary<string | Uint8Array> {
  const envNs = version === '1.1' ? SOAP11_NS : SOAP12_NS;
  const valid = validEnvelope(version);
  const namespace = fc.oneof(fc.constantFrom(SOAP11_NS, SOAP12_NS, '', 'SVAPI', 'svapi', 'http://tempuri.org/'), fc.webUrl(), fc.string({ maxLength: 30 }));
  return fc.oneof(
    // random bytes
    fc.uint8Array({ maxLength: 2048 }),
    // random text
    fc.string({ unit: 'binary', maxLength: 500 }),
    // a valid envelope, truncated
    fc.tuple(valid, fc.double({ min: 0, max: 1, noNaN: true })).map(([xml, f]) => xml.slice(0, Math.floor(xml.length * f))),
    // a valid envelope with something inserted somewhere
    fc.tuple(valid, fc.nat(), fc.oneof(fc.constantFrom(...ENTITY_REFS, '<', '>', '"', '</soap:Body>', '<soap:Body>', '<?pi x?>', '<!DOCTYPE x>'), fc.string({ unit: 'binary', maxLength: 20 })))
      .map(([xml, at, what]) => { const i = at % (xml.length + 1); return xml.slice(0, i) + what + xml.slice(i); }),
    // random nesting inside the Body (and around it)
    fc.record({ depth: fc.integer({ min: 0, max: 80 }), name: fc.constantFrom('a', 'GetWeapons', 'soap:Body', 'x:y', 'soap:Envelope'), inBody: fc.boolean() })
      .map(({ depth, name, inBody }) => {
        const open = `<${name}${name.startsWith('x:') ? ' xmlns:x="urn:x"' : ''}>`.repeat(depth);
        const close = `</${name}>`.repeat(depth);
        return inBody
          ? envelopeAround(version, `${open}<GetWeapons xmlns="SVAPI"><DevID>${svc.key.devId}</DevID></GetWeapons>${close}`, { prolog: '' })
          : `${open}${envelopeAround(version, '', { prolog: '' })}${close}`;
      }),
    // random namespaces for the envelope, the body and the operation
    fc.record({ env: namespace, body: namespace, op: namespace, name: fc.constantFrom(...OPS), ps: withCreds })
      .map(({ env, body, op, name, ps }) => `<e:Envelope xmlns:e="${attrEscape(env)}"><b:Body xmlns:b="${attrEscape(body)}"><o:${name} xmlns:o="${attrEscape(op)}">${ps.filter(([k]) => /^[A-Za-z_][\w.-]*$/.test(k)).map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`).join('')}</o:${name}></b:Body></e:Envelope>`),
    // huge attribute values (some over the body limit)
    fc.record({ size: fc.integer({ min: 1000, max: 80_000 }), where: fc.constantFrom('Envelope', 'Body', 'op', 'param') })
      .map(({ size, where }) => {
        const attr = ` big="${'A'.repeat(size)}"`;
        const at = (w: string) => (where === w ? attr : '');
        return `<s:Envelope xmlns:s="${envNs}"${at('Envelope')}><s:Body${at('Body')}><GetWeapons xmlns="SVAPI"${at('op')}><DevID${at('param')}>${svc.key.devId}</DevID><DevKey>${svc.key.devKey}</DevKey></GetWeapons></s:Body></s:Envelope>`;
      }),
    // entity references, DTDs and processing instructions in prolog and parameters
    fc.record({ prolog: fc.constantFrom(...PROLOGS), ref: fc.constantFrom(...ENTITY_REFS), ps: withCreds })
      .map(({ prolog, ref, ps }) => envelope(version, 'GetWeapons',
        `<DevID>${svc.key.devId}</DevID><DevKey>${xmlEscape(svc.key.devKey)}</DevKey><SearchWord>a${ref}${xmlEscape(ps[0]?.[1] ?? '')}</SearchWord>`, { prolog })),
    // generated parameter strings in a valid envelope, escaped or not
    fc.record({ op: fc.constantFrom(...OPS), ps: withCreds, raw: fc.boolean() })
      .map(({ op, ps, raw }) => {
        const named = ps.filter(([k]) => /^[A-Za-z_][\w.-]*$/.test(k));
        return envelope(version, op, raw ? named.map(([k, v]) => `<${k}>${v}</${k}>`).join('') : paramsXml(named), { prolog: '' });
      }),
  );
}

/**
 * Calls that reach four different callers' errors, tried first on each binding (fast-check's
 * examples, 4 of the RUNS): a SOAP run of 150 draws once reached only three (CI, 2026-11-28), and
 * HTTP GET's reached four or five in three runs (InvalidParameter not always), so the variety check
 * could fail on the draw.
 */
function knownErrors(): Array<{ where: typeof WEAPONS | typeof HUNTING; op: string; params: Record<string, string> }> {
  const { DevID, DevKey } = creds();
  return [
    { where: HUNTING, op: 'GetMonster', params: { DevID, DevKey } }, // MissingParameter
    { where: HUNTING, op: 'GetMonster', params: { DevID, DevKey, MonsterID: 'many' } }, // InvalidParameter
    { where: WEAPONS, op: 'GetWeapons', params: { DevID, DevKey: `${DevKey}x` } }, // AuthenticationFailed
    { where: WEAPONS, op: 'Nope', params: { DevID, DevKey } }, // UnknownOperation
  ];
}

describe.each([['soap11', '1.1'], ['soap12', '1.2']] as const)('%s', (binding, version) => {
  test('any generated message gets a well-formed answer of the contract', async () => {
    await fc.assert(
      fc.asyncProperty(envelopes(version), soapPath, async (message, where) => {
        const body = typeof message === 'string' ? message : new Uint8Array(message);
        const answer = await send(svc.url + where, { method: 'POST', headers: { 'Content-Type': soapContentType(version) }, body });
        // As ASMX did, text/xml carrying a SOAP 1.2 envelope is answered as SOAP 1.2 (CONTRACT §3).
        const as12 = binding === 'soap11' && answer.headers.get('content-type') === soapContentType('1.2');
        if (as12 && !Buffer.from(body).toString('latin1').includes(SOAP12_NS)) throw new Error(`SOAP 1.2 answer to a message without its namespace: ${answer.body}`);
        check(as12 ? 'soap12' : binding, answer, typeof message === 'string' ? message : `bytes ${Buffer.from(message).toString('hex')}`);
      }),
      {
        numRuns: RUNS,
        examples: knownErrors().map(({ where, op, params }): [string, typeof where] => [envelope(version, op, params), where]),
      },
    );
    expectVariety(seen[binding]);
    await stillServes(binding);
  });
});

describe('HTTP GET', () => {
  // Raw query text: `%`, `&`, `=` and `+` kept as generated (malformed escapes included).
  const rawQuery = fc.string({ unit: 'binary', maxLength: 200 }).map((s) => [...s].map((c) => (/[A-Za-z0-9%&=+._~-]/.test(c) ? c : encodeURIComponent(c))).join(''));
  test('any generated query gets a well-formed answer of the contract', async () => {
    await fc.assert(
      fc.asyncProperty(target, withCreds, fc.option(rawQuery), async ({ where, op }, ps, raw) => {
        const query = ps.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).concat(raw ? [raw] : []).join('&');
        const url = `${svc.url}${where}/${encodeURIComponent(op)}?${query}`;
        check('get', await send(url), url);
      }),
      {
        numRuns: RUNS,
        examples: knownErrors().map(({ where, op, params }): [{ where: string; op: string }, [string, string][], null] => [{ where, op }, Object.entries(params), null]),
      },
    );
    expectVariety(seen.get);
    await stillServes('get');
  });
});

describe('HTTP POST', () => {
  // application/json is the JSON binding's (test/json-binding.test.ts).
  const contentType = fc.oneof(
    fc.constant('application/x-www-form-urlencoded'),
    fc.constant('application/x-www-form-urlencoded; charset=utf-8'),
    fc.constantFrom('application/x-www-form-urlencoded; charset=iso-8859-1', 'application/x-www-form-urlencoded; charset=nope', 'text/plain', 'multipart/form-data; boundary=x', 'text/xml', 'application/soap+xml', ';;;', 'application/x-www-form-urlencoded;charset="utf-16"'),
  );
  const body = fc.oneof(
    withCreds.map((ps) => new URLSearchParams(ps).toString()),
    withCreds.map((ps) => ps.map(([k, v]) => `${k}=${v}`).join('&')),
    fc.uint8Array({ maxLength: 1024 }),
    fc.string({ unit: 'binary', maxLength: 300 }),
  );
  test('any generated form gets a well-formed answer of the contract', async () => {
    await fc.assert(
      fc.asyncProperty(target, contentType, body, async ({ where, op }, type, content) => {
        const answer = await send(`${svc.url}${where}/${encodeURIComponent(op)}`, {
          method: 'POST',
          headers: { 'Content-Type': type },
          body: typeof content === 'string' ? content : new Uint8Array(content),
        });
        check('post', answer, `${op} ${type} ${typeof content === 'string' ? content : Buffer.from(content).toString('hex')}`);
      }),
      { numRuns: RUNS },
    );
    expectVariety(seen.post);
    await stillServes('post');
  });
});
