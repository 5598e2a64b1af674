// Requests exactly as real SOAP toolkits sent them (test/fixtures/toolkit-requests), replayed
// against the service with our own credentials: every one must get a correct answer. The captures
// were made with the default namespace; each is also replayed as the same toolkit would have sent
// it for the other namespace forms (namespace and action rewritten, actions by ASMX's rule) to a
// service configured with that namespace.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { soapActionFor } from '../src/xml/soap-action';
import { escapeAttr } from '../src/xml/escape';
import { comparableGlobalRow, type GlobalRow } from './support/global-rows';
import { NAMESPACE_FORMS, serveNamespaceForms, type NamespaceServices } from './support/namespace-forms';
import { child, childText, children, isNil, parseDocument, path as xpath, type XmlElement } from './support/xml';

const FIXTURES = path.join(__dirname, 'fixtures/toolkit-requests');
const CAPTURED_NS = 'SVAPI';
const ENVELOPE_NS = { soap11: 'http://schemas.xmlsoap.org/soap/envelope/', soap12: 'http://www.w3.org/2003/05/soap-envelope' } as const;
const CONTENT_TYPE = { soap11: 'text/xml; charset=utf-8', soap12: 'application/soap+xml; charset=utf-8' } as const;
type Version = keyof typeof ENVELOPE_NS;

/** One captured request: request line, headers in order (name case kept), body bytes. */
interface CapturedRequest {
  file: string;
  toolkit: string;
  operation: string;
  version: Version;
  method: string;
  target: string;
  headers: [string, string][];
  body: Buffer;
}

/** Reads a `.http` capture; header lines may end in CRLF or a bare LF, the body is kept byte for byte. */
function readCapture(file: string): CapturedRequest {
  const bytes = fs.readFileSync(file);
  const text = bytes.toString('latin1'); // one char per byte, so offsets are byte offsets
  const end = /\r?\n\r?\n/.exec(text);
  if (!end) throw new Error(`${file}: no blank line after the headers`);
  const [requestLine, ...headerLines] = text.slice(0, end.index).split(/\r?\n/);
  const [method, target, protocol] = requestLine.split(' ');
  if (!/^HTTP\/1\.[01]$/.test(protocol)) throw new Error(`${file}: bad request line ${requestLine}`);
  const headers = headerLines.map((line): [string, string] => {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`${file}: bad header line ${JSON.stringify(line)}`);
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  const m = /^(\w+)-(soap1[12])\.http$/.exec(path.basename(file));
  if (!m) throw new Error(`${file}: name is not <Operation>-soap11|soap12.http`);
  return {
    file: path.relative(FIXTURES, file),
    toolkit: path.basename(path.dirname(file)),
    operation: m[1],
    version: m[2] as Version,
    method,
    target,
    headers,
    body: bytes.subarray(end.index + end[0].length),
  };
}

const captures: CapturedRequest[] = fs
  .readdirSync(FIXTURES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => fs.readdirSync(path.join(FIXTURES, d.name)).filter((f) => f.endsWith('.http')).map((f) => path.join(FIXTURES, d.name, f)))
  .sort()
  .map(readCapture);

/**
 * The capture as its toolkit would have sent it for namespace `ns`: every quoted value that is the
 * captured namespace, or an action or name under it (`"SVAPI/GetMonster"`, gSOAP's
 * `"SVAPI/HuntingSoap"`), in the body and in the headers, rewritten by ASMX's rule.
 */
function inNamespace(c: CapturedRequest, ns: string): CapturedRequest {
  if (ns === CAPTURED_NS) return c;
  const rewrite = (text: string, escape: (s: string) => string) =>
    text.replace(/"SVAPI(?:\/([\w.-]+))?"/g, (_m, name: string | undefined) => `"${escape(name === undefined ? ns : soapActionFor(ns, name))}"`);
  const body = rewrite(c.body.toString('utf8'), escapeAttr);
  const headers = c.headers.map(([name, value]): [string, string] => [name, rewrite(value, (v) => v)]);
  if ([body, ...headers.map(([, v]) => v)].some((t) => /\bSVAPI\b/.test(t))) throw new Error(`${c.file}: a namespace value the rewrite does not know`);
  return { ...c, headers, body: Buffer.from(body, 'utf8') };
}

/** The capture's body with our credentials in place of DevID 1 / DevKey test-key (each exactly once). */
function withCredentials(c: CapturedRequest, key: { devId: number; devKey: string }): Buffer {
  let body = c.body.toString('utf8');
  const swap = (name: string, from: string, to: string) => {
    const re = new RegExp(`(<(?:[\\w.-]+:)?${name}\\b[^>]*>)\\s*${from}\\s*(</(?:[\\w.-]+:)?${name}>)`, 'g');
    const hits = body.match(re)?.length ?? 0;
    if (hits !== 1) throw new Error(`${c.file}: expected one ${name} ${from}, found ${hits}`);
    body = body.replace(re, (_m, open: string, close: string) => `${open}${to}${close}`);
  };
  swap('DevID', '1', String(key.devId));
  swap('DevKey', 'test-key', key.devKey);
  return Buffer.from(body, 'utf8');
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Sends the capture with its own method, target and headers (names, case, order and repeats kept). */
function replay(c: CapturedRequest, baseUrl: string, key: { devId: number; devKey: string }): Promise<Reply> {
  const url = new URL(baseUrl);
  const body = withCredentials(c, key);
  const raw: string[] = [];
  for (const [name, value] of c.headers) {
    const lower = name.toLowerCase();
    raw.push(name, lower === 'content-length' ? String(body.length) : lower === 'host' ? url.host : value);
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method: c.method, path: c.target, headers: raw, setHost: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', reject);
        res.on('end', () => {
          let bytes = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          if (encoding === 'gzip') bytes = zlib.gunzipSync(bytes);
          else if (encoding === 'deflate') bytes = zlib.inflateSync(bytes);
          else if (encoding === 'br') bytes = zlib.brotliDecompressSync(bytes);
          resolve({ status: res.statusCode!, headers: res.headers, body: bytes.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// What the database holds, read independently of the service's queries.
interface Expected {
  monster1: { monster_id: number; monster_name: string };
  weaponIds: number[];
  damageRows: Map<number, number>;
  itemIds: number[];
  monsterIds: number[];
  categories: { category_id: number; category_name: string }[];
  monster5: GlobalRow[];
  player777001: GlobalRow[];
  area107: GlobalRow[];
  area107Total: number;
}

let services: NamespaceServices;
let expected: Expected;

beforeAll(async () => {
  services = await serveNamespaceForms();
  const k = services.svc.db.knex;
  const newest = (column: string, value: number, limit: number): Promise<GlobalRow[]> =>
    k('hunting_globals')
      .where(column, value)
      .orderBy([{ column: 'time_stamp', order: 'desc' }, { column: 'global_value', order: 'desc' }, 'player_id', 'monster_id', 'global_type_id'])
      .limit(limit)
      .select('monster_id', 'time_stamp', 'global_type_id', 'global_value', 'player_id', 'landarea_id');
  const ids = async (table: string, column: string) => (await k(table).select(column).orderBy(column)).map((r) => r[column] as number);
  const damage = await k('weapon_damage').select('weapon_id').count<{ weapon_id: number; count: string }[]>('* as count').groupBy('weapon_id');
  const [{ count: area107Total }] = await k('hunting_globals').where('landarea_id', 107).count<{ count: string }[]>('* as count');
  expected = {
    monster1: await k('monsters').where('monster_id', 1).first('monster_id', 'monster_name'),
    weaponIds: await ids('weapons', 'weapon_id'),
    damageRows: new Map(damage.map((d) => [d.weapon_id, Number(d.count)])),
    itemIds: await ids('items', 'item_id'),
    monsterIds: await ids('monsters', 'monster_id'),
    categories: await k('auction_categories').orderBy('category_id').select('category_id', 'category_name'),
    monster5: await newest('monster_id', 5, 10),
    player777001: await newest('player_id', 777001, 1),
    area107: await newest('landarea_id', 107, 100),
    area107Total: Number(area107Total),
  };
  // The sample data must make these checks meaningful.
  expect(expected.monster1).toBeDefined();
  expect(expected.monster5).toHaveLength(10);
  expect(expected.player777001).toHaveLength(1);
  expect(expected.area107Total).toBeGreaterThan(100);
  expect(expected.weaponIds.length).toBeGreaterThan(1);
}, 120_000);

afterAll(async () => {
  await services?.close();
});

const int = (el: XmlElement, name: string): number => {
  const text = childText(el, name);
  if (text === undefined || !/^-?\d+$/.test(text)) throw new Error(`<${el.name}> ${name} is not an int: ${text}`);
  return Number(text);
};
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** A HuntingGlobal element as the columns it stands for. */
function globalRow(g: XmlElement) {
  const stamp = childText(g, 'TimeStamp')!;
  expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$/);
  return {
    monster_id: int(xpath(g, 'Monster'), 'MonsterID'),
    time: Date.parse(stamp),
    global_type_id: int(xpath(g, 'GlobalType'), 'GlobalTypeID'),
    global_value: int(g, 'GlobalValue'),
    player_id: int(xpath(g, 'Player'), 'PlayerID'),
    landarea_id: int(xpath(g, 'Landarea'), 'AreaID'),
  };
}
const asRow = comparableGlobalRow;

/** The records inside `<Op>Result`, each checked to be in the result's namespace. */
function records(result: XmlElement, record: string): XmlElement[] {
  for (const c of result.children) {
    expect({ local: c.local, uri: c.uri }).toEqual({ local: record, uri: result.uri });
    expect(isNil(c)).toBe(false);
  }
  return children(result, record);
}

/** Checks the result against the database for the parameters the capture sent. */
function checkResult(operation: string, result: XmlElement) {
  switch (operation) {
    case 'GetMonster':
      expect(int(result, 'MonsterID')).toBe(1);
      expect(childText(result, 'MonsterName')).toBe(expected.monster1.monster_name);
      break;
    case 'GetMonsters':
      expect(sorted(records(result, 'Monster').map((m) => int(m, 'MonsterID')))).toEqual(expected.monsterIds);
      break;
    case 'GetWeapons': {
      const weapons = records(result, 'Weapon');
      expect(sorted(weapons.map((w) => int(w, 'WeaponID')))).toEqual(expected.weaponIds);
      for (const w of weapons) {
        const damage = xpath(w, 'DamageTypes').children;
        expect(damage.length).toBe(expected.damageRows.get(int(w, 'WeaponID')) ?? 0);
        for (const d of damage) expect(d.local).toBe('DamageType');
      }
      break;
    }
    case 'FindItems':
      expect(sorted(records(result, 'Item').map((i) => int(i, 'ItemID')))).toEqual(expected.itemIds);
      break;
    case 'GetAuctionCategories':
      expect(records(result, 'AuctionCategory').map((c) => ({ category_id: int(c, 'CategoryID'), category_name: childText(c, 'CategoryName') })))
        .toEqual(expected.categories);
      break;
    case 'GetMonsterGlobals': {
      const rows = records(result, 'HuntingGlobal').map(globalRow);
      expect(rows).toHaveLength(10);
      expect(rows).toEqual(expected.monster5.map(asRow));
      break;
    }
    case 'GetPlayerGlobals':
      expect(records(result, 'HuntingGlobal').map(globalRow)).toEqual(expected.player777001.map(asRow));
      break;
    case 'GetLandareaGlobals': {
      const rows = records(result, 'HuntingGlobal').map(globalRow);
      expect(rows).toHaveLength(Math.min(100, expected.area107Total));
      expect(rows).toEqual(expected.area107.map(asRow));
      break;
    }
    default:
      throw new Error(`no check for ${operation}`);
  }
}

test('the fixtures hold every operation in both SOAP versions for each toolkit (suds: 1.1 only)', () => {
  const toolkits = [...new Set(captures.map((c) => c.toolkit))];
  expect(toolkits).toEqual(['gsoap', 'java', 'perl', 'php', 'suds', 'zeep']);
  const operations = ['FindItems', 'GetAuctionCategories', 'GetLandareaGlobals', 'GetMonster', 'GetMonsterGlobals', 'GetMonsters', 'GetPlayerGlobals', 'GetWeapons'];
  for (const t of toolkits) {
    const versions: Version[] = t === 'suds' ? ['soap11'] : ['soap11', 'soap12'];
    const have = captures.filter((c) => c.toolkit === t).map((c) => `${c.operation}-${c.version}`).sort();
    expect(have).toEqual(operations.flatMap((o) => versions.map((v) => `${o}-${v}`)).sort());
  }
  // every capture's Content-Length is its body's, so the parse above split them right
  for (const c of captures) {
    const length = c.headers.find(([n]) => n.toLowerCase() === 'content-length')?.[1];
    expect(`${c.file} ${length}`).toBe(`${c.file} ${c.body.length}`);
  }
});

const replays = NAMESPACE_FORMS.flatMap((ns) => captures.map((c) => [ns, c.file, inNamespace(c, ns)] as const));

describe.each(replays)('namespace %s: %s', (ns, _file, capture) => {
  test('gets the right records in a correct envelope', async () => {
    const reply = await replay(capture, services.url(ns), services.svc.key);
    const context = `${capture.file}: ${reply.status} ${reply.headers['content-type']}\n${reply.body.slice(0, 2000)}`;
    expect({ status: reply.status, contentType: reply.headers['content-type'], context }).toEqual({
      status: 200,
      contentType: CONTENT_TYPE[capture.version],
      context,
    });
    // zeep asks for gzip (`gzip, deflate`): an answer of 1 KB or more comes compressed, and was inflated above.
    const accepted = capture.headers.find(([name]) => name.toLowerCase() === 'accept-encoding')?.[1] ?? '';
    const compressed = /\bgzip\b/.test(accepted) && Buffer.byteLength(reply.body) >= 1024;
    expect({ file: capture.file, encoding: reply.headers['content-encoding'] }).toEqual({ file: capture.file, encoding: compressed ? 'gzip' : undefined });
    const doc = parseDocument(reply.body);
    expect(doc.startsWithDeclaration).toBe(true);
    expect(doc.declaration?.encoding?.toLowerCase()).toBe('utf-8');
    const envelope = doc.root;
    expect({ local: envelope.local, uri: envelope.uri }).toEqual({ local: 'Envelope', uri: ENVELOPE_NS[capture.version] });
    const body = xpath(envelope, { local: 'Body', uri: ENVELOPE_NS[capture.version] });
    expect(body.children).toHaveLength(1);
    const response = body.children[0];
    expect({ local: response.local, uri: response.uri }).toEqual({ local: `${capture.operation}Response`, uri: ns });
    expect(response.children.map((c) => [c.local, c.uri])).toEqual([[`${capture.operation}Result`, ns]]);
    const result = child(response, `${capture.operation}Result`)!;
    checkResult(capture.operation, result);
  });
});
