// SOAP faults and hostile or unusual requests (CONTRACT §3, §4 parameters, §7, §8 input limits):
// the status and fault shape of each SOAP version, and that none of node-soap's own habits
// reaches a client.

import net from 'node:net';
import zlib from 'node:zlib';
import request from 'supertest';
import { createKey, revokeKey } from '../src/auth/keys';
import { callerFault, envelope, envelopeAround, paramsXml as params, readError, readResult, SOAP11_NS, SOAP12_NS, soapContentType, XML_DECL } from './support/bindings';
import { serveOver, type ServedApp } from './support/serve';
import { startService, type TestService } from './support/service';
import { child, descendants, isNil, parseXml, resolveQName, XML_NS, XSI_NS, type XmlElement } from './support/xml-tree';

type Version = '1.1' | '1.2';
const VERSIONS: Version[] = ['1.1', '1.2'];
const ENV_NS: Record<Version, string> = { '1.1': SOAP11_NS, '1.2': SOAP12_NS };
const REQUEST_TYPE: Record<Version, string> = { '1.1': 'text/xml; charset=utf-8', '1.2': 'application/soap+xml; charset=utf-8' };
const RESPONSE_TYPE = REQUEST_TYPE;
const HUNTING = '/API/hunting.asmx';
const MAX_BODY = 65536;

interface Reply {
  status: number;
  /** Response headers by lower-case name. */
  headers: Record<string, string>;
  type: string | null;
  text: string;
  ms: number;
}

async function send(svc: TestService, body: string | Buffer | undefined, headers: Record<string, string>, opts: { method?: string; path?: string } = {}): Promise<Reply> {
  const start = Date.now();
  const payload = Buffer.isBuffer(body) ? new Uint8Array(body) : body;
  const res = await fetch(svc.url + (opts.path ?? HUNTING), { method: opts.method ?? 'POST', headers, body: payload });
  const text = await res.text();
  const received: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    received[name] = value;
  });
  return { status: res.status, headers: received, type: res.headers.get('content-type'), text, ms: Date.now() - start };
}

interface RawReply {
  statusLine: string;
  /** By lower-case name. */
  headers: Record<string, string>;
  body: string;
}

/** A POST written byte for byte on a socket (no client adds or changes a header), read to the end. */
function rawPost(base: string, path: string, contentType: string, body: string, extra: string[] = []): Promise<RawReply> {
  const { hostname, port } = new URL(base);
  const bytes = Buffer.from(body, 'utf8');
  const head = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, `Content-Type: ${contentType}`, `Content-Length: ${bytes.length}`, ...extra, 'Connection: close', '', ''].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      if (headers['transfer-encoding']) reject(new Error(`a chunked answer: ${text}`));
      resolve({ statusLine, headers, body: text.slice(split + 4) });
    });
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), bytes]));
  });
}

/** A SOAP request with the version's Content-Type and, unless told otherwise, the right action. */
function soap(svc: TestService, version: Version, body: string | Buffer, opts: { action?: string | null; headers?: Record<string, string>; path?: string } = {}) {
  const headers: Record<string, string> = { 'Content-Type': REQUEST_TYPE[version], ...opts.headers };
  if (version === '1.1' && opts.action !== null && opts.action !== undefined) headers.SOAPAction = opts.action;
  if (version === '1.2' && opts.action !== null && opts.action !== undefined) headers['Content-Type'] += `; action="${opts.action}"`;
  return send(svc, body, headers, { path: opts.path });
}

/** Nothing that helps an attacker: no stack trace, file path, SQL text. */
function expectNoLeak(reply: Reply) {
  const all = reply.text + Object.entries(reply.headers).map(([k, v]) => `\n${k}: ${v}`).join('');
  expect(all).not.toMatch(/\n\s*at |\bat [\w$.<>]+ \(|\.(ts|js):\d+/);
  expect(all).not.toMatch(/\/work\/|node_modules|[A-Z]:\\/);
  expect(all).not.toMatch(/\bselect\b[\s\S]*\bfrom\b|\binsert into\b|\brelation "|syntax error|knex|pg_|postgres/i);
}

interface FaultExpectation {
  code: string;
  parameter?: string;
  /** The HTTP status when it is not the default for the code. */
  status?: number;
}

/**
 * Checks a whole SOAP fault (CONTRACT §7): status, content type, XML declaration, envelope of
 * the version, faultcode/Code in the envelope namespace, faultstring/Reason and the
 * ServiceError detail. Returns the message.
 */
function expectFault(reply: Reply, version: Version, want: FaultExpectation): string {
  const party = want.code === 'VersionMismatch' ? 'VersionMismatch'
    : ['InternalError', 'ServiceUnavailable'].includes(want.code) ? 'service' : 'caller';
  const fixed: Record<string, number> = { RequestTooLarge: 413, UnsupportedMediaType: 415, MethodNotAllowed: 405 };
  const status = want.status ?? fixed[want.code] ?? (party === 'caller' && version === '1.2' ? 400 : 500);
  const faultcode = party === 'VersionMismatch' ? 'VersionMismatch'
    : version === '1.1' ? (party === 'caller' ? 'Client' : 'Server') : (party === 'caller' ? 'Sender' : 'Receiver');
  expect({ status: reply.status, type: reply.type }).toEqual({ status, type: RESPONSE_TYPE[version] });
  expect(reply.text.startsWith(XML_DECL)).toBe(true);
  expectNoLeak(reply);
  const env = parseXml(reply.text).root;
  const ns = ENV_NS[version];
  expect([env.local, env.uri]).toEqual(['Envelope', ns]);
  const body = child(env, 'Body', ns);
  expect(body.children.map((c) => [c.local, c.uri])).toEqual([['Fault', ns]]);
  const fault = body.children[0];
  let message: string;
  let detail: XmlElement;
  if (version === '1.1') {
    // SOAP 1.1: the fault's children are unqualified
    expect(fault.children.map((c) => [c.local, c.uri])).toEqual([['faultcode', ''], ['faultstring', ''], ['detail', '']]);
    const code = fault.children[0];
    expect(resolveQName(code, code.text)).toEqual({ uri: ns, local: faultcode });
    message = fault.children[1].text;
    detail = fault.children[2];
  } else {
    expect(fault.children.map((c) => [c.local, c.uri])).toEqual([['Code', ns], ['Reason', ns], ['Detail', ns]]);
    const value = child(fault.children[0], 'Value', ns);
    expect(resolveQName(value, value.text)).toEqual({ uri: ns, local: faultcode });
    const texts = fault.children[1].children;
    expect(texts.map((t) => [t.local, t.uri, Object.values(t.attributes).map((a) => [a.uri, a.local, a.value])]))
      .toEqual([['Text', ns, [[XML_NS, 'lang', 'en']]]]);
    message = texts[0].text;
    detail = fault.children[2];
  }
  expect(detail.children.map((c) => [c.local, c.uri])).toEqual([['ServiceError', 'SVAPI']]);
  expectServiceError(detail.children[0], want, message);
  return message;
}

/** `<ServiceError><Code/><Message/><Parameter/>?</ServiceError>` in the service namespace. */
function expectServiceError(error: XmlElement, want: FaultExpectation, message?: string, ns = 'SVAPI') {
  const fields = error.children.map((c) => [c.local, c.uri, c.text]);
  const expected: [string, string, string][] = [['Code', ns, want.code], ['Message', ns, message ?? error.children[1]?.text]];
  if (want.parameter !== undefined) expected.push(['Parameter', ns, want.parameter]);
  expect(fields).toEqual(expected);
  expect(error.children[1].text.length).toBeGreaterThan(0);
}

/** A bare `<ServiceError>` document (no SOAP version known). */
function expectServiceErrorDocument(reply: Reply, status: number, code: string) {
  expect({ status: reply.status, type: reply.type }).toEqual({ status, type: 'text/xml; charset=utf-8' });
  expect(reply.text.startsWith(XML_DECL)).toBe(true);
  expectNoLeak(reply);
  const root = parseXml(reply.text).root;
  expect([root.local, root.uri]).toEqual(['ServiceError', 'SVAPI']);
  expectServiceError(root, { code });
}

/** A successful SOAP answer of the version: 200, its content type and envelope. Returns `<Op>Result`. */
function expectSuccess(reply: Reply, version: Version, op: string, ns = 'SVAPI'): XmlElement {
  if (reply.status !== 200) throw new Error(`expected 200, got ${reply.status}: ${reply.text}`);
  expect(reply.type).toBe(RESPONSE_TYPE[version]);
  expect(reply.text.startsWith(XML_DECL)).toBe(true);
  const env = parseXml(reply.text).root;
  expect([env.local, env.uri]).toEqual(['Envelope', ENV_NS[version]]);
  const body = child(env, 'Body', ENV_NS[version]);
  expect(body.children.map((c) => [c.local, c.uri])).toEqual([[`${op}Response`, ns]]);
  return child(body.children[0], `${op}Result`, ns);
}

// =============================================================================================

describe('with the default namespace', () => {
  let svc: TestService;
  const cred = () => params([['DevID', String(svc.key.devId)], ['DevKey', svc.key.devKey]]);
  const getMonster = (version: Version, id = '1', opts: { action?: string | null; headers?: Record<string, string> } = {}) =>
    soap(svc, version, envelope(version, 'GetMonster', cred() + params([['MonsterID', id]])), { action: 'SVAPI/GetMonster', ...opts });
  const call = (version: Version, op: string, inner: string) => soap(svc, version, envelope(version, op, inner), { action: `SVAPI/${op}` });

  beforeAll(async () => {
    svc = await startService({ SVAPI_RATE_LIMIT: '1000000', SVAPI_AUTH_FAIL_LIMIT: '1000000' });
  });
  afterAll(async () => {
    await svc?.close();
  });

  describe.each(VERSIONS)('SOAP %s', (version) => {
    describe('credentials', () => {
      test('wrong key, unknown DevID, missing or empty DevKey, missing DevID, DevID "abc", revoked key: one AuthenticationFailed message for all', async () => {
        const revoked = await createKey(svc.db.knex, 'revoked');
        await revokeKey(svc.db.knex, revoked.devId);
        const { devId, devKey } = svc.key;
        const wrongKey = devKey.slice(0, -1) + (devKey.endsWith('A') ? 'B' : 'A');
        const cases: [string, string][] = [
          ['wrong key', params([['DevID', String(devId)], ['DevKey', wrongKey]])],
          ['unknown DevID', params([['DevID', String(devId + 100000)], ['DevKey', devKey]])],
          ['missing DevKey', params([['DevID', String(devId)]])],
          ['empty DevKey', params([['DevID', String(devId)], ['DevKey', '']])],
          ['missing DevID', params([['DevKey', devKey]])],
          ['DevID "abc"', params([['DevID', 'abc'], ['DevKey', devKey]])],
          ['DevID out of range', params([['DevID', '99999999999'], ['DevKey', devKey]])],
          ['revoked key', params([['DevID', String(revoked.devId)], ['DevKey', revoked.devKey]])],
        ];
        const messages = new Set<string>();
        for (const [name, inner] of cases) {
          const reply = await call(version, 'GetMonster', inner + params([['MonsterID', '1']]));
          try {
            messages.add(expectFault(reply, version, { code: 'AuthenticationFailed' }));
          } catch (e) {
            throw new Error(`${name}: ${(e as Error).message}`);
          }
        }
        expect(messages.size).toBe(1);
      });

      test('credentials are checked before the parameters', async () => {
        const inner = params([['DevID', String(svc.key.devId)], ['DevKey', 'wrong'], ['MonsterID', 'abc']]);
        expectFault(await call(version, 'GetMonster', inner), version, { code: 'AuthenticationFailed' });
      });
    });

    describe('parameters', () => {
      test.each(['abc', '99999999999', '2147483648', '-2147483649', '', '  ', '1.5', '1e3', '0x10', '١'])(
        'MonsterID %j is InvalidParameter naming MonsterID', async (value) => {
          expectFault(await getMonster(version, value), version, { code: 'InvalidParameter', parameter: 'MonsterID' });
        });

      test('MonsterID as XSD int: sign, leading zeros and surrounding whitespace are accepted', async () => {
        for (const value of [' 7 ', '+7', '007', '\n\t7\n']) {
          const result = expectSuccess(await getMonster(version, value), version, 'GetMonster');
          expect(child(result, 'MonsterID').text).toBe('7');
        }
        expectFault(await getMonster(version, '2147483647'), version, { code: 'NotFound' });
        expectFault(await getMonster(version, '-2147483648'), version, { code: 'NotFound' });
      });

      test('an absent MonsterID or NumberOfGlobals is MissingParameter naming it', async () => {
        expectFault(await call(version, 'GetMonster', cred()), version, { code: 'MissingParameter', parameter: 'MonsterID' });
        expectFault(await call(version, 'GetMonsterGlobals', cred() + params([['MonsterID', '1']])), version,
          { code: 'MissingParameter', parameter: 'NumberOfGlobals' });
        expectFault(await call(version, 'GetLandareaGlobals', cred()), version, { code: 'MissingParameter', parameter: 'LandareaID' });
      });

      test('NumberOfGlobals "abc" is InvalidParameter, not coerced to NaN', async () => {
        const reply = await call(version, 'GetMonsterGlobals', cred() + params([['MonsterID', '1'], ['NumberOfGlobals', 'abc']]));
        expectFault(reply, version, { code: 'InvalidParameter', parameter: 'NumberOfGlobals' });
        expect(reply.text).not.toContain('NaN');
      });

      test('a parameter given twice is InvalidParameter naming it', async () => {
        const reply = await call(version, 'GetMonster', cred() + params([['MonsterID', '1'], ['MonsterID', '2']]));
        expectFault(reply, version, { code: 'InvalidParameter', parameter: 'MonsterID' });
      });

      test('parameter names are case-sensitive: PlayerID is not playerID', async () => {
        const reply = await call(version, 'GetPlayerGlobals', cred() + params([['PlayerID', '754190'], ['NumberOfGlobals', '1']]));
        expectFault(reply, version, { code: 'MissingParameter', parameter: 'playerID' });
      });

      test('unknown parameters are ignored', async () => {
        const reply = await call(version, 'GetMonster', cred() + params([['MonsterID', '3'], ['Color', 'blue']]));
        expect(child(expectSuccess(reply, version, 'GetMonster'), 'MonsterID').text).toBe('3');
      });

      test('parameters qualified with a prefix, unqualified, with xsi:type, CDATA or character references are accepted', async () => {
        const { devId, devKey } = svc.key;
        const bodies = [
          `<s:GetMonster xmlns:s="SVAPI"><s:DevID>${devId}</s:DevID><s:DevKey>${devKey}</s:DevKey><s:MonsterID>4</s:MonsterID></s:GetMonster>`,
          `<s:GetMonster xmlns:s="SVAPI"><DevID>${devId}</DevID><DevKey>${devKey}</DevKey><MonsterID>4</MonsterID></s:GetMonster>`,
          `<GetMonster xmlns="SVAPI" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">`
            + `<DevID xsi:type="xsd:int">${devId}</DevID><DevKey xsi:type="xsd:string">${devKey}</DevKey><MonsterID xsi:type="xsd:int">4</MonsterID></GetMonster>`,
          `<GetMonster xmlns="SVAPI"><DevID>${devId}</DevID><DevKey><![CDATA[${devKey}]]></DevKey><MonsterID>&#52;</MonsterID></GetMonster>`,
        ];
        for (const op of bodies) {
          const xml = envelopeAround(version, op);
          const result = expectSuccess(await soap(svc, version, xml, { action: 'SVAPI/GetMonster' }), version, 'GetMonster');
          expect(child(result, 'MonsterID').text).toBe('4');
        }
      });
    });

    describe('actions', () => {
      test('an action naming another operation than the Body is a caller\'s fault', async () => {
        for (const action of ['SVAPI/GetMonsters', 'SVAPI/NoSuchOperation', 'http://other.example/GetMonster']) {
          expectFault(await getMonster(version, '1', { action }), version, { code: 'BadRequest' });
        }
      });

      test('a missing or empty action is accepted', async () => {
        expectSuccess(await getMonster(version, '1', { action: null }), version, 'GetMonster');
        expectSuccess(await getMonster(version, '1', { action: '' }), version, 'GetMonster');
      });

      test('a SOAPAction header is read on either version, quoted or not', async () => {
        const body = envelope(version, 'GetMonster', cred() + params([['MonsterID', '1']]));
        const headers = (soapAction: string) => ({ 'Content-Type': REQUEST_TYPE[version], SOAPAction: soapAction });
        expectSuccess(await send(svc, body, headers('"SVAPI/GetMonster"')), version, 'GetMonster');
        expectSuccess(await send(svc, body, headers('SVAPI/GetMonster')), version, 'GetMonster');
        expectSuccess(await send(svc, body, headers('""')), version, 'GetMonster');
        expectFault(await send(svc, body, headers('"SVAPI/GetMonsters"')), version, { code: 'BadRequest' });
      });
    });

    describe('operations', () => {
      test('an unknown operation element is UnknownOperation, without stack trace or path', async () => {
        const reply = await call(version, 'DropAllTables', cred());
        expectFault(reply, version, { code: 'UnknownOperation' });
      });

      test('an operation of another endpoint is UnknownOperation', async () => {
        expectFault(await call(version, 'GetWeapons', cred()), version, { code: 'UnknownOperation' });
      });

      test('an operation element in a foreign namespace or in none is UnknownOperation', async () => {
        const inner = cred() + params([['MonsterID', '1']]);
        expectFault(await soap(svc, version, envelope(version, 'GetMonster', inner, { ns: 'http://evil.example/svapi' })), version,
          { code: 'UnknownOperation' });
        expectFault(await soap(svc, version, envelope(version, 'GetMonster', inner, { ns: '' })), version, { code: 'UnknownOperation' });
        expectFault(await soap(svc, version, envelope(version, 'GetMonster', inner, { ns: 'svapi' })), version, { code: 'UnknownOperation' });
      });
    });

    describe('unreadable messages', () => {
      const ok = () => envelope(version, 'GetMonster', cred() + params([['MonsterID', '1']]));
      const cases: [string, () => string | Buffer][] = [
        ['truncated XML', () => ok().slice(0, -20)],
        ['mismatched tags', () => ok().replace('</soap:Body>', '</soap:Bdy>')],
        ['text that is not XML', () => 'hello'],
        ['an empty body', () => ''],
        ['two root elements', () => ok() + '<soap:Envelope/>'],
        ['an undeclared prefix', () => ok().replace('<GetMonster xmlns="SVAPI">', '<x:GetMonster>').replace('</GetMonster>', '</x:GetMonster>')],
        ['bytes that are not UTF-8', () => Buffer.concat([Buffer.from(ok().slice(0, 200)), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(ok().slice(200))])],
        ['a root that is no Envelope', () => `${XML_DECL}<GetMonster xmlns="SVAPI">${cred()}</GetMonster>`],
        ['an Envelope without Body', () => `${XML_DECL}<soap:Envelope xmlns:soap="${ENV_NS[version]}"/>`],
        ['an empty Body', () => envelopeAround(version, '')],
      ];
      test.each(cases)('%s is BadRequest, a caller\'s fault (not faultcode 500)', async (_name, body) => {
        const reply = await soap(svc, version, body());
        expectFault(reply, version, { code: 'BadRequest' });
        expect(reply.text).not.toMatch(/faultcode>\s*500|Value>\s*500/);
        // no header carrying the parser's complaint
        const headers = Object.entries(reply.headers).filter(([k]) => k !== 'content-type');
        expect(headers.filter(([, v]) => /error|exception|fault|unexpected|unclosed|xml/i.test(v))).toEqual([]);
      });
    });

    describe('hostile XML', () => {
      const body = (prolog: string, paramValue = '1') =>
        envelope(version, 'GetMonster', `${cred()}<MonsterID>${paramValue}</MonsterID>`, { prolog: XML_DECL + prolog });
      const cases: [string, () => string][] = [
        ['a DOCTYPE', () => body('<!DOCTYPE soap:Envelope>')],
        ['an internal entity', () => body('<!DOCTYPE soap:Envelope [<!ENTITY id "1">]>', '&id;')],
        ['a billion laughs', () => body(`<!DOCTYPE soap:Envelope [<!ENTITY lol "lol">${
          Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('')}]>`, '&lol9;')],
        ['an external entity', () => body('<!DOCTYPE soap:Envelope [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', '&xxe;')],
        ['a parameter entity', () => body('<!DOCTYPE soap:Envelope [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x.dtd"> %p;]>')],
        ['a processing instruction before the Envelope', () => body('<?xml-stylesheet href="x.xsl"?>')],
        ['a processing instruction in the Body', () => body('').replace('<GetMonster', '<?php echo 1; ?><GetMonster')],
      ];
      test.each(cases)('%s is BadRequest and nothing is expanded', async (_name, xml) => {
        const reply = await soap(svc, version, xml(), { action: 'SVAPI/GetMonster' });
        expectFault(reply, version, { code: 'BadRequest' });
        expect(reply.text).not.toMatch(/root:|lollol/);
      });

      const nested = (depth: number) => {
        // Envelope, Body, GetMonster and Extra are 4 levels
        const inner = '<x>'.repeat(depth - 4) + '</x>'.repeat(depth - 4);
        return envelope(version, 'GetMonster', `${cred()}<MonsterID>1</MonsterID><Extra>${inner}</Extra>`);
      };
      test('nesting of 32 elements is accepted, 33 is BadRequest', async () => {
        expectSuccess(await soap(svc, version, nested(32)), version, 'GetMonster');
        expectFault(await soap(svc, version, nested(33)), version, { code: 'BadRequest' });
        expectFault(await soap(svc, version, nested(5000)), version, { code: 'BadRequest' });
      });
    });

    describe('body size and encoding', () => {
      const padded = (size: number) => {
        const base = envelope(version, 'GetMonster', `${cred()}<MonsterID>1</MonsterID><Pad></Pad>`);
        return base.replace('<Pad></Pad>', `<Pad>${'p'.repeat(size - Buffer.byteLength(base))}</Pad>`);
      };

      test('a body of exactly 64 KiB is answered, one byte more is 413 RequestTooLarge', async () => {
        expect(Buffer.byteLength(padded(MAX_BODY))).toBe(MAX_BODY);
        expectSuccess(await soap(svc, version, padded(MAX_BODY)), version, 'GetMonster');
        expectFault(await soap(svc, version, padded(MAX_BODY + 1)), version, { code: 'RequestTooLarge' });
        expectFault(await soap(svc, version, padded(1024 * 1024)), version, { code: 'RequestTooLarge' });
      });

      test('a gzip- or deflate-compressed body is answered', async () => {
        const xml = envelope(version, 'GetMonster', cred() + params([['MonsterID', '2']]));
        for (const [encoding, data] of [['gzip', zlib.gzipSync(xml)], ['deflate', zlib.deflateSync(xml)]] as const) {
          const reply = await soap(svc, version, data, { headers: { 'Content-Encoding': encoding } });
          expect(child(expectSuccess(reply, version, 'GetMonster'), 'MonsterID').text).toBe('2');
        }
      });

      test('a compressed body over 64 KiB once inflated is 413, and a gzip bomb is refused quickly', async () => {
        const inflatedTooBig = zlib.gzipSync(padded(MAX_BODY + 1));
        expect(inflatedTooBig.length).toBeLessThan(MAX_BODY);
        expectFault(await soap(svc, version, inflatedTooBig, { headers: { 'Content-Encoding': 'gzip' } }), version, { code: 'RequestTooLarge' });
        const bomb = zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024));
        expect(bomb.length).toBeLessThan(64 * 1024);
        const reply = await soap(svc, version, bomb, { headers: { 'Content-Encoding': 'gzip' } });
        expectFault(reply, version, { code: 'RequestTooLarge' });
        expect(reply.ms).toBeLessThan(2000);
      });

      test('an unknown Content-Encoding or charset is 415 UnsupportedMediaType', async () => {
        const xml = envelope(version, 'GetMonster', cred() + params([['MonsterID', '2']]));
        expectFault(await soap(svc, version, xml, { headers: { 'Content-Encoding': 'x-squash' } }), version, { code: 'UnsupportedMediaType' });
        const type = `${REQUEST_TYPE[version].split(';')[0]}; charset=x-no-such-charset`;
        expectFault(await send(svc, xml, { 'Content-Type': type }), version, { code: 'UnsupportedMediaType' });
      });

      test('a body that claims gzip but is not is BadRequest', async () => {
        const xml = envelope(version, 'GetMonster', cred() + params([['MonsterID', '2']]));
        expectFault(await soap(svc, version, xml, { headers: { 'Content-Encoding': 'gzip' } }), version, { code: 'BadRequest' });
      });
    });

    describe('envelope version', () => {
      if (version === '1.2') {
        test('a SOAP 1.1 envelope sent as SOAP 1.2 (application/soap+xml) is a VersionMismatch fault with 500', async () => {
          const xml = envelope('1.1', 'GetMonster', cred() + params([['MonsterID', '1']]));
          expectFault(await soap(svc, version, xml), version, { code: 'VersionMismatch' });
        });
      }

      test('an envelope in an unknown namespace is a VersionMismatch fault', async () => {
        const xml = envelope(version, 'GetMonster', cred() + params([['MonsterID', '1']])).replace(ENV_NS[version], 'http://example.com/soap-envelope');
        expectFault(await soap(svc, version, xml), version, { code: 'VersionMismatch' });
      });
    });

    describe('what real toolkits send', () => {
      test('Content-Type parameters in any case, spacing or quoting', async () => {
        const body = envelope(version, 'GetMonster', cred() + params([['MonsterID', '1']]));
        const types = version === '1.1'
          ? ['TEXT/XML', 'text/xml;charset=UTF-8', 'Text/Xml; Charset="utf-8"', 'text/xml ;  charset=utf-8']
          : ['application/soap+xml', 'Application/SOAP+XML;Charset="UTF-8";Action="SVAPI/GetMonster"', 'application/soap+xml; action=SVAPI/GetMonster ; charset=utf-8'];
        for (const type of types) expectSuccess(await send(svc, body, { 'Content-Type': type }), version, 'GetMonster');
      });

      test('a body in the charset the Content-Type names', async () => {
        const xml = envelope(version, 'GetMonsters', cred() + params([['SearchWord', 'Ñandú']])).replace('encoding="utf-8"', 'encoding="ISO-8859-1"');
        const type = version === '1.1' ? 'text/xml; charset=iso-8859-1' : 'application/soap+xml; charset=iso-8859-1';
        const result = expectSuccess(await send(svc, Buffer.from(xml, 'latin1'), { 'Content-Type': type }), version, 'GetMonsters');
        expect(result.children.map((m) => child(m, 'MonsterName').text)).toEqual(['Ñandú']);
      });

      test('a UTF-8 byte order mark before the XML declaration', async () => {
        const xml = envelope(version, 'GetMonster', cred() + params([['MonsterID', '1']]));
        expectSuccess(await soap(svc, version, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)])), version, 'GetMonster');
      });

      test('comments anywhere in the message', async () => {
        const xml = envelope(version, 'GetMonster', `<!-- c -->${cred()}<MonsterID><!-- one -->1</MonsterID>`)
          .replace('<soap:Body>', '<!-- before Body --><soap:Body><!-- in Body -->');
        expect(child(expectSuccess(await soap(svc, version, xml), version, 'GetMonster'), 'MonsterID').text).toBe('1');
      });

      test('dispatch is by the first child of Body', async () => {
        const xml = envelope(version, 'GetMonster', cred() + params([['MonsterID', '1']]))
          .replace('</soap:Body>', `<GetMonsters xmlns="SVAPI">${cred()}</GetMonsters></soap:Body>`);
        expectSuccess(await soap(svc, version, xml), version, 'GetMonster');
      });

      test('soap:encodingStyle on the Envelope, a SOAP Header and whitespace between elements are tolerated', async () => {
        const xml = envelope(version, 'GetMonster', `\n  ${cred()}\n  <MonsterID>1</MonsterID>\n`, {
          envelopeAttrs: ` soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"`,
          header: `\n<soap:Header><wsa:Action xmlns:wsa="http://www.w3.org/2005/08/addressing">SVAPI/GetMonster</wsa:Action></soap:Header>\n`,
        });
        expectSuccess(await soap(svc, version, xml), version, 'GetMonster');
      });
    });

    describe('responses', () => {
      test('xsi is declared where xsi:nil is used, and the nil value is in the XSI namespace', async () => {
        // Monster 2 of the sample has neither description nor picture
        const reply = await getMonster(version, '2');
        expect(reply.text).toContain('xsi:nil="true"');
        const result = expectSuccess(reply, version, 'GetMonster'); // parsing fails on an undeclared prefix
        const description = child(result, 'Description');
        expect(isNil(description)).toBe(true);
        expect(Object.values(description.attributes).map((a) => a.uri)).toEqual([XSI_NS]);
      });

      test('HuntingGlobal children come in XSD order and TimeStamp is never empty', async () => {
        const reply = await call(version, 'GetMonsterGlobals', cred() + params([['MonsterID', '1'], ['NumberOfGlobals', '20']]));
        const globals = expectSuccess(reply, version, 'GetMonsterGlobals').children;
        expect(globals.length).toBe(20);
        for (const g of globals) {
          expect(g.children.map((c) => c.local)).toEqual(['Monster', 'TimeStamp', 'GlobalType', 'GlobalValue', 'Player', 'Landarea']);
          expect(child(g, 'TimeStamp').text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$/);
          expect(child(g, 'Monster').children.map((c) => c.local)).toEqual(['MonsterName', 'MonsterID', 'Description']);
          expect(child(g, 'Player').children.map((c) => c.local)).toEqual(['PlayerName', 'PlayerID', 'IsTeam']);
          expect(child(g, 'Landarea').children.map((c) => c.local)).toEqual(['AreaName', 'AreaID', 'Planet']);
        }
      });

      test('every element of a response is in its envelope or the service namespace', async () => {
        const reply = await call(version, 'GetMonsterGlobals', cred() + params([['MonsterID', '1'], ['NumberOfGlobals', '5']]));
        expectSuccess(reply, version, 'GetMonsterGlobals');
        const uris = new Set(descendants(parseXml(reply.text).root).map((e) => e.uri));
        expect([...uris].sort()).toEqual([ENV_NS[version], 'SVAPI'].sort());
      });
    });
  });

  describe('a SOAP 1.2 envelope sent as text/xml is SOAP 1.2, as ASMX took it (by the envelope namespace)', () => {
    const TEXT_XML = 'text/xml; charset=utf-8';
    const getMonster12 = (id: string) => envelope('1.2', 'GetMonster', cred() + params([['MonsterID', id]]));

    test('a raw request: 200, application/soap+xml, the SOAP 1.2 answer the same call gets as application/soap+xml', async () => {
      const xml = getMonster12('1');
      const raw = await rawPost(svc.url, HUNTING, TEXT_XML, xml, ['SOAPAction: "SVAPI/GetMonster"']);
      expect(raw.statusLine).toBe('HTTP/1.1 200 OK');
      const reply = { status: 200, headers: raw.headers, type: raw.headers['content-type'], text: raw.body, ms: 0 };
      const result = expectSuccess(reply, '1.2', 'GetMonster');
      expect(child(result, 'MonsterID').text).toBe('1');
      expect(raw.body).not.toContain(SOAP11_NS);
      expect(raw.body).toBe((await soap(svc, '1.2', xml)).text);
      // Without a SOAPAction, and with the Content-Type in other spellings.
      for (const type of ['text/xml', 'TEXT/XML;charset=UTF-8']) {
        expectSuccess(await send(svc, getMonster12('2'), { 'Content-Type': type }), '1.2', 'GetMonster');
      }
    });

    test('its faults are SOAP 1.2 faults (400 env:Sender), whatever refuses it after the envelope is read', async () => {
      const asTextXml = (body: string, headers: Record<string, string> = {}) => send(svc, body, { 'Content-Type': TEXT_XML, ...headers });
      const wrongKey = params([['DevID', String(svc.key.devId)], ['DevKey', 'wrong'], ['MonsterID', '1']]);
      expectFault(await asTextXml(envelope('1.2', 'GetMonster', wrongKey)), '1.2', { code: 'AuthenticationFailed' });
      expectFault(await asTextXml(getMonster12('abc')), '1.2', { code: 'InvalidParameter', parameter: 'MonsterID' });
      expectFault(await asTextXml(getMonster12('1'), { SOAPAction: '"SVAPI/GetMonsters"' }), '1.2', { code: 'BadRequest' });
      expectFault(await asTextXml(envelope('1.2', 'Nope', cred())), '1.2', { code: 'UnknownOperation' });
      expectFault(await asTextXml(envelopeAround('1.2', '')), '1.2', { code: 'BadRequest' });
      expectFault(await asTextXml(envelopeAround('1.2', `<?pi x?>${`<GetMonster xmlns="SVAPI">${cred()}</GetMonster>`}`)), '1.2', { code: 'BadRequest' });
      expectFault(await asTextXml(getMonster12('1').slice(0, -20)), '1.2', { code: 'BadRequest' });
      // Not yet known before the envelope: a DOCTYPE ahead of it is refused as SOAP 1.1, as text/xml says.
      expectFault(await asTextXml(`<!DOCTYPE x>${getMonster12('1').slice(XML_DECL.length)}`), '1.1', { code: 'BadRequest' });
    });

    test('an envelope in neither namespace sent as text/xml is a SOAP 1.1 VersionMismatch fault', async () => {
      const xml = getMonster12('1').replace(SOAP12_NS, 'http://example.com/soap-envelope');
      expectFault(await send(svc, xml, { 'Content-Type': TEXT_XML }), '1.1', { code: 'VersionMismatch' });
    });

    test('a raw SOAP 1.1 envelope sent as application/soap+xml stays a SOAP 1.2 VersionMismatch fault', async () => {
      const xml = envelope('1.1', 'GetMonster', cred() + params([['MonsterID', '1']]));
      const raw = await rawPost(svc.url, HUNTING, 'application/soap+xml; charset=utf-8; action="SVAPI/GetMonster"', xml);
      expect(raw.statusLine).toBe('HTTP/1.1 500 Internal Server Error');
      expectFault({ status: 500, headers: raw.headers, type: raw.headers['content-type'], text: raw.body, ms: 0 }, '1.2', { code: 'VersionMismatch' });
    });
  });

  test('one path answers SOAP 1.2 with a 1.2 envelope and SOAP 1.1 with a 1.1 envelope, alternately', async () => {
    for (const version of ['1.2', '1.1', '1.2', '1.1', '1.2'] as Version[]) {
      const reply = await getMonster(version, '1');
      expectSuccess(reply, version, 'GetMonster');
      expect(reply.text).not.toContain(ENV_NS[version === '1.1' ? '1.2' : '1.1']);
      const fault = await getMonster(version, 'abc');
      expectFault(fault, version, { code: 'InvalidParameter', parameter: 'MonsterID' });
    }
    // and when requests of both versions are in flight at once
    const versions = Array.from({ length: 20 }, (_, i): Version => (i % 2 ? '1.1' : '1.2'));
    const replies = await Promise.all(versions.map((v, i) => getMonster(v, i % 4 < 2 ? '1' : 'abc')));
    replies.forEach((reply, i) => {
      if (i % 4 < 2) expectSuccess(reply, versions[i], 'GetMonster');
      else expectFault(reply, versions[i], { code: 'InvalidParameter', parameter: 'MonsterID' });
    });
  });

  describe('other requests on an endpoint', () => {
    test('a Content-Type that is no SOAP version is 415 with a ServiceError document', async () => {
      const xml = envelope('1.1', 'GetMonster', cred() + params([['MonsterID', '1']]));
      for (const type of ['application/json', 'text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
        expectServiceErrorDocument(await send(svc, type === 'application/json' ? '{"DevID":1}' : xml, { 'Content-Type': type }), 415, 'UnsupportedMediaType');
      }
      expectServiceErrorDocument(await send(svc, xml, {}), 415, 'UnsupportedMediaType');
    });

    test('a SOAP request to a path that is no endpoint is 404 with a ServiceError document', async () => {
      const xml = envelope('1.1', 'GetMonster', cred() + params([['MonsterID', '1']]));
      expectServiceErrorDocument(await soap(svc, '1.1', xml, { path: '/api/nothing.asmx' }), 404, 'NotFound');
    });

    test('endpoint paths match case-insensitively', async () => {
      for (const version of VERSIONS) {
        const xml = envelope(version, 'GetMonster', cred() + params([['MonsterID', '1']]));
        expectSuccess(await soap(svc, version, xml, { path: '/api/HUNTING.ASMX' }), version, 'GetMonster');
      }
    });

    test.each(['PUT', 'DELETE', 'PATCH'])('%s is 405 MethodNotAllowed with an Allow header', async (method) => {
      const reply = await send(svc, undefined, {}, { method });
      expectServiceErrorDocument(reply, 405, 'MethodNotAllowed');
      expect(reply.headers.allow?.split(/\s*,\s*/).sort()).toEqual(['GET', 'POST']);
    });

    test('GET without ?wsdl is an HTML page listing the operations and linking the WSDL', async () => {
      const reply = await send(svc, undefined, {}, { method: 'GET' });
      expect(reply.status).toBe(200);
      expect(reply.type).toMatch(/^text\/html/);
      expect(reply.text).toMatch(/<html/i);
      for (const op of ['GetMonsters', 'GetMonster', 'GetMonsterGlobals', 'GetPlayerGlobals', 'GetLandareaGlobals']) expect(reply.text).toContain(op);
      expect(reply.text).toContain('?wsdl');
    });

    test.each(['wsdl', 'WSDL', 'Wsdl'])('GET ?%s is the WSDL as text/xml; charset=utf-8', async (key) => {
      const reply = await send(svc, undefined, {}, { method: 'GET', path: `${HUNTING}?${key}` });
      expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: 'text/xml; charset=utf-8' });
      const defs = parseXml(reply.text).root;
      expect([defs.local, defs.uri, defs.attributes.targetNamespace?.value])
        .toEqual(['definitions', 'http://schemas.xmlsoap.org/wsdl/', 'SVAPI']);
    });
  });

  test('a failure inside the service is a Server/Receiver fault with 500 and no SQL in it', async () => {
    const knex = svc.db.knex;
    await knex.raw('ALTER TABLE auction_categories RENAME TO auction_categories_away');
    try {
      for (const version of VERSIONS) {
        const reply = await soap(svc, version, envelope(version, 'GetAuctionCategories', cred()), { path: '/api/auction.asmx' });
        expectFault(reply, version, { code: 'InternalError' });
        expect(reply.text).not.toContain('auction_categories');
      }
    } finally {
      await knex.raw('ALTER TABLE auction_categories_away RENAME TO auction_categories');
    }
    const reply = await soap(svc, '1.1', envelope('1.1', 'GetAuctionCategories', cred()), { path: '/api/auction.asmx' });
    expect(expectSuccess(reply, '1.1', 'GetAuctionCategories').children.length).toBeGreaterThan(0);
  });
});

// =============================================================================================

describe('with SVAPI_NAMESPACE set to a legacy URI', () => {
  const LEGACY = 'http://legacy.example/svapi';
  let svc: TestService;
  const cred = () => params([['DevID', String(svc.key.devId)], ['DevKey', svc.key.devKey]]);

  beforeAll(async () => {
    svc = await startService({ SVAPI_NAMESPACE: LEGACY, SVAPI_RATE_LIMIT: '1000000', SVAPI_AUTH_FAIL_LIMIT: '1000000' });
  });
  afterAll(async () => {
    await svc?.close();
  });

  describe.each(VERSIONS)('SOAP %s', (version) => {
    test('a request in the legacy namespace is answered in it', async () => {
      const xml = envelope(version, 'GetMonster', cred() + params([['MonsterID', '1']]), { ns: LEGACY });
      const reply = await soap(svc, version, xml, { action: `${LEGACY}/GetMonster` });
      const result = expectSuccess(reply, version, 'GetMonster', LEGACY);
      expect(result.children.map((c) => [c.local, c.uri])).toEqual([['MonsterName', LEGACY], ['MonsterID', LEGACY], ['Description', LEGACY]]);
      expect(reply.text).not.toContain('"SVAPI"');
    });

    test('a request in the SVAPI namespace is UnknownOperation, its detail in the legacy namespace', async () => {
      const xml = envelope(version, 'GetMonster', cred() + params([['MonsterID', '1']]), { ns: 'SVAPI' });
      const reply = await soap(svc, version, xml);
      expect(reply.status).toBe(version === '1.1' ? 500 : 400);
      const fault = child(child(parseXml(reply.text).root, 'Body', ENV_NS[version]), 'Fault', ENV_NS[version]);
      const detail = fault.children.find((c) => c.local === 'detail' || c.local === 'Detail')!;
      expectServiceError(child(detail, 'ServiceError', LEGACY), { code: 'UnknownOperation' }, undefined, LEGACY);
    });

    test('the old action SVAPI/GetMonster on a legacy-namespace body is a caller\'s fault', async () => {
      const xml = envelope(version, 'GetMonster', cred() + params([['MonsterID', '1']]), { ns: LEGACY });
      const reply = await soap(svc, version, xml, { action: 'SVAPI/GetMonster' });
      expect(reply.status).toBe(version === '1.1' ? 500 : 400);
      expect(reply.text).toContain('<Code>BadRequest</Code>');
    });
  });
});

// =============================================================================================

/**
 * The three forms a namespace takes (CONTRACT §1): ASMX's default, which ends in `/`; a URI
 * without one; and ours. `actions` are what a request may name for GetMonster: ASMX's spelling
 * first, then the plain `<namespace>/<Operation>` where it differs.
 */
const NAMESPACE_FORMS = [
  { ns: 'http://tempuri.org/', actions: ['http://tempuri.org/GetMonster', 'http://tempuri.org//GetMonster'], near: 'http://tempuri.org' },
  { ns: 'http://example.com/svapi', actions: ['http://example.com/svapi/GetMonster'], near: 'http://example.com/svapi/' },
  { ns: 'SVAPI', actions: ['SVAPI/GetMonster'], near: 'http://tempuri.org/' },
];

describe('the namespace forms', () => {
  let base: TestService;
  beforeAll(async () => {
    base = await startService();
  });
  afterAll(async () => {
    await base?.close();
  });

  describe.each(NAMESPACE_FORMS)('SVAPI_NAMESPACE=$ns', ({ ns, actions, near }) => {
    let served: ServedApp;
    beforeAll(async () => {
      served = await serveOver(base.db, { SVAPI_NAMESPACE: ns });
    });
    afterAll(async () => {
      await served?.close();
    });

    const cred = () => ({ DevID: String(base.key.devId), DevKey: base.key.devKey });
    /** GetMonster 1 over SOAP `version`, naming `action` (SOAPAction on 1.1, the action parameter on 1.2) unless null. */
    const getMonster = (version: Version, action: string | null, bodyNs = ns) => {
      const type = soapContentType(version) + (version === '1.2' && action !== null ? `; action="${action}"` : '');
      const req = request(served.server).post(HUNTING).set('Content-Type', type).buffer(true);
      if (version === '1.1' && action !== null) req.set('SOAPAction', `"${action}"`);
      return req.send(envelope(version, 'GetMonster', { ...cred(), MonsterID: '1' }, bodyNs));
    };

    describe.each(VERSIONS)('SOAP %s', (version) => {
      test('the ASMX action, the plain spelling where it differs, and an empty or missing action are accepted', async () => {
        for (const action of [...actions, '', null]) {
          const res = await getMonster(version, action);
          expect({ action, status: res.status }).toEqual({ action, status: 200 });
          const result = readResult(res.text);
          expect([result.local, result.uri]).toEqual(['GetMonsterResult', ns]);
        }
      });

      test('an action naming another operation, or another namespace\'s, is a caller\'s fault', async () => {
        const [asmx] = actions;
        const foreign = ns === 'SVAPI' ? 'http://tempuri.org/GetMonster' : 'SVAPI/GetMonster';
        const wrong = [asmx.replace(/GetMonster$/, 'GetMonsters'), asmx.replace(/GetMonster$/, 'NoSuchOperation'), `${ns.replace(/\/$/, '')}GetMonster`, `${ns}//GetMonsters`, foreign];
        const { status, faultCode } = callerFault(version === '1.1' ? 'soap11' : 'soap12', 400);
        for (const action of wrong) {
          const res = await getMonster(version, action);
          expect({ action, status: res.status }).toEqual({ action, status });
          expect(readError(res.text, ns)).toMatchObject({ faultCode, code: 'BadRequest' });
        }
      });

      test('a Body element in another namespace is UnknownOperation, its message naming both namespaces', async () => {
        const { status, faultCode } = callerFault(version === '1.1' ? 'soap11' : 'soap12', 404);
        for (const [bodyNs, where] of [[near, `in namespace '${near}'`], ['', 'in no namespace']]) {
          const res = await getMonster(version, null, bodyNs);
          expect(res.status).toBe(status);
          expect(readError(res.text, ns)).toEqual({
            faultCode,
            code: 'UnknownOperation',
            message: `The operation GetMonster is ${where}; this service's namespace is '${ns}'.`,
            parameter: undefined,
          });
        }
      });
    });
  });
});
