// The JSON binding (CONTRACT §3, ASMX ScriptService): every operation answers the same values as
// HTTP GET, decimals exact, nil as null; errors as {"Message","ExceptionType","Code"} with the HTTP
// bindings' statuses; the same credentials, limits and hostile-input rules.

import { RecordFields, type FieldMeta, type RecordName } from '../src/generated/records';
import { startService, type TestService } from './support/service';
import { serveOver, type ServedApp } from './support/serve';
import { send, type Answer } from './support/bindings';
import { parseXml, XSI_NS, type XmlElement } from './support/xml-tree';
import { TcpProxy } from './support/tcp-proxy';
import { createKey } from '../src/auth/keys';

const JSON_TYPE = 'application/json; charset=utf-8';
const WEAPONS = '/api/weapons.asmx';
const HUNTING = '/API/hunting.asmx';

/** Instants around the edges of JavaScriptSerializer's rule: before 1970, parts of a millisecond, its first and last day. */
const DATE_INSTANTS = [
  '2026-11-21T18:04:05Z', '2026-11-21T18:04:05.123456Z', '2026-11-21T18:04:05.999999Z', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00.0009Z',
  '1969-12-31T23:59:59.9995Z', '1969-12-31T23:59:59.0005Z', '1969-12-31T23:59:59.999Z', '1900-02-28T12:00:00.250001Z',
  '0001-01-01T00:00:00Z', '0099-06-15T00:00:00.5Z', '9999-12-31T23:59:59.999999Z',
];
const DATE_PLAYER = 999_000_019;
/** The parsed value of a JSON dateTime (CONTRACT §3): `/Date(<ms since 1970 UTC>)/`. */
const ASP_NET_DATE = /^\/Date\((-?\d+)\)\/$/;

let svc: TestService;
let ids: { monster: number; player: number; landarea: number; weapon: number; bareWeapon: number; bareMonster: number };

beforeAll(async () => {
  svc = await startService();
  const knex = svc.db.knex;
  const g = await knex('hunting_globals').first('monster_id', 'player_id', 'landarea_id', 'global_type_id');
  const w = await knex('weapons').orderBy('weapon_id').first('weapon_id');
  // A weapon without damage rows and a monster without description or picture, whatever the sample holds.
  const bare = await knex('weapons').whereNot({ weapon_id: w.weapon_id }).orderBy('weapon_id', 'desc').first('weapon_id');
  const other = await knex('monsters').whereNot({ monster_id: g.monster_id }).orderBy('monster_id', 'desc').first('monster_id');
  ids = { monster: g.monster_id, player: g.player_id, landarea: g.landarea_id, weapon: w.weapon_id, bareWeapon: bare.weapon_id, bareMonster: other.monster_id };
  // Set before any call, so no answer is cached yet. Decimals a binary float would change:
  await knex('weapons').where({ weapon_id: ids.weapon }).update({ weight: '12345678.12345', range: '0.1' });
  // A player of its own whose globals are the instants the JSON dates are checked on.
  await knex('players').insert({ player_id: DATE_PLAYER, player_name: 'Date Checker', is_team: false });
  await knex('hunting_globals').insert(DATE_INSTANTS.map((time_stamp, i) => ({
    monster_id: g.monster_id, time_stamp, global_type_id: g.global_type_id, global_value: i + 1, player_id: DATE_PLAYER, landarea_id: g.landarea_id,
  })));
  await knex('weapon_damage').where({ weapon_id: ids.bareWeapon }).del();
  await knex('monsters').where({ monster_id: ids.bareMonster }).update({ description: null, item_picture_url: null });
});
afterAll(() => svc.close());

const creds = () => ({ DevID: svc.key.devId, DevKey: svc.key.devKey });

function post(base: string, path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return send(base + path, { method: 'POST', headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers }, body });
}
const callJson = (path: string, op: string, params: Record<string, unknown>, base = svc.url) => post(base, `${path}/${op}`, JSON.stringify(params));

/** JSON.parse, with every number kept as its exact text (`#12.50`): decimals are compared as written. */
function parseExact(text: string): unknown {
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (t) => (t.startsWith('"') ? t : `"#${t}"`));
  return JSON.parse(marked);
}

/** An HTTP GET answer's record as the JSON binding must give it: numbers as `#text`, nil and absent as null. */
function fromXml(record: RecordName, el: XmlElement): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of RecordFields[record] as readonly FieldMeta[]) {
    const c = el.children.find((k) => k.local === field.name);
    if (!c || Object.values(c.attributes).some((a) => a.uri === XSI_NS && a.local === 'nil' && a.value === 'true')) out[field.name] = null;
    else if (field.kind === 'record') out[field.name] = fromXml(field.type, c);
    else if (field.kind === 'list') out[field.name] = c.children.map((item) => fromXml(field.type, item));
    else if (field.type === 'int' || field.type === 'decimal') out[field.name] = `#${c.text}`;
    else if (field.type === 'boolean') out[field.name] = c.text === 'true';
    // Checked against the database's instants in the dateTime test below.
    else if (field.type === 'dateTime') out[field.name] = expect.stringMatching(ASP_NET_DATE);
    else out[field.name] = c.text;
  }
  return out;
}

const CASES = () => [
  { path: WEAPONS, op: 'GetWeapons', params: { SearchWord: '' }, record: 'Weapon', list: true },
  { path: '/api/item.asmx', op: 'FindItems', params: { SearchWord: 'a' }, record: 'Item', list: true },
  { path: HUNTING, op: 'GetMonsters', params: {}, record: 'Monster', list: true },
  { path: HUNTING, op: 'GetMonster', params: { MonsterID: ids.monster }, record: 'Monster', list: false },
  { path: HUNTING, op: 'GetMonsterGlobals', params: { MonsterID: ids.monster, NumberOfGlobals: 50 }, record: 'HuntingGlobal', list: true },
  { path: HUNTING, op: 'GetPlayerGlobals', params: { playerID: ids.player, NumberOfGlobals: 50 }, record: 'HuntingGlobal', list: true },
  { path: HUNTING, op: 'GetLandareaGlobals', params: { LandareaID: ids.landarea }, record: 'HuntingGlobal', list: true },
  { path: '/api/auction.asmx', op: 'GetAuctionCategories', params: {}, record: 'AuctionCategory', list: true },
] as const;

test('every operation answers {"d": ...} with the values of HTTP GET, in schema order', async () => {
  for (const c of CASES()) {
    const params: Record<string, unknown> = { ...creds(), ...c.params };
    const answer = await callJson(c.path, c.op, params);
    expect({ op: c.op, status: answer.status, type: answer.headers.get('content-type') }).toEqual({ op: c.op, status: 200, type: JSON_TYPE });
    const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
    const xml = await send(`${svc.url}${c.path}/${c.op}?${query}`);
    const root = parseXml(xml.body).root;
    const expected = c.list ? root.children.map((r) => fromXml(c.record, r)) : fromXml(c.record, root);
    const got = parseExact(answer.body) as { d: unknown };
    expect(Object.keys(got)).toEqual(['d']);
    expect(got.d).toEqual(expected);
    // Members in the schema's field order.
    const first = (Array.isArray(got.d) ? got.d[0] : got.d) as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(RecordFields[c.record].map((f) => f.name));
    if (c.list) expect((got.d as unknown[]).length).toBeGreaterThan(0);
  }
});

test('a dateTime is written as JavaScriptSerializer wrote it: "\\/Date(ms)\\/", the milliseconds of the stored instant cut toward zero', async () => {
  const answer = await callJson(HUNTING, 'GetPlayerGlobals', { ...creds(), playerID: DATE_PLAYER, NumberOfGlobals: 100 });
  expect(answer.status).toBe(200);
  // The JSON text escapes the slashes: `"\/Date(...)\/"`, the form ASP.NET AJAX turns into a Date.
  expect(answer.body.match(/"TimeStamp":"[^"]*"/g)).toHaveLength(DATE_INSTANTS.length);
  expect(answer.body.match(/"TimeStamp":"\\\/Date\(-?\d+\)\\\/"/g)).toHaveLength(DATE_INSTANTS.length);
  const got = (JSON.parse(answer.body).d as { GlobalValue: number; TimeStamp: string }[])
    .map((r) => ({ value: r.GlobalValue, ms: ASP_NET_DATE.exec(r.TimeStamp)?.[1] }));
  // The stored instant in microseconds; C#'s `ticks / 10000` cuts toward zero, as BigInt division does.
  const rows = await svc.db.knex('hunting_globals').where({ player_id: DATE_PLAYER })
    .select('global_value', svc.db.knex.raw('(extract(epoch FROM time_stamp) * 1000000)::bigint::text AS us'));
  const expected = rows.map((r: { global_value: number; us: string }) => ({ value: r.global_value, ms: String(BigInt(r.us) / 1000n) }));
  expect(got.sort((a, b) => a.value - b.value)).toEqual(expected.sort((a, b) => a.value - b.value));
  // The rule's edges, as the instants above give them.
  const byInstant = Object.fromEntries(DATE_INSTANTS.map((t, i) => [t, got.find((r) => r.value === i + 1)!.ms]));
  expect(byInstant).toMatchObject({
    '2026-11-21T18:04:05.999999Z': String(Date.UTC(2026, 10, 21, 18, 4, 5, 999)),
    '1970-01-01T00:00:00.0009Z': '0',
    '1969-12-31T23:59:59.9995Z': '0',
    '1969-12-31T23:59:59.0005Z': '-999',
    '1969-12-31T23:59:59.999Z': '-1',
    '0001-01-01T00:00:00Z': '-62135596800000',
  });
});

test('decimals are JSON numbers written exactly as stored; nil is null; no damage rows is []', async () => {
  const answer = await callJson(WEAPONS, 'GetWeapons', { ...creds() });
  expect(answer.body).toContain('"Weight":12345678.12345,"Range":0.1,');
  const weapons = (JSON.parse(answer.body) as { d: { WeaponID: number; DamageTypes: unknown[] }[] }).d;
  expect(weapons.find((w) => w.WeaponID === ids.bareWeapon)!.DamageTypes).toEqual([]);
  expect(weapons.find((w) => w.WeaponID === ids.weapon)!.DamageTypes.length).toBeGreaterThan(0);
  const globals = (JSON.parse((await callJson(HUNTING, 'GetMonsterGlobals', { ...creds(), MonsterID: ids.monster, NumberOfGlobals: 1 })).body)).d;
  expect(typeof globals[0].Monster).toBe('object');
  expect(JSON.parse((await callJson(HUNTING, 'GetMonster', { ...creds(), MonsterID: ids.bareMonster })).body).d.Description).toBeNull();
  expect(JSON.parse((await callJson(HUNTING, 'GetMonster', { ...creds(), MonsterID: ids.monster })).body).d.Description).not.toBeNull();
});

test('ints take JSON numbers and numeric strings; strings take strings and numbers; null is absent', async () => {
  const byNumber = await callJson(HUNTING, 'GetMonster', { ...creds(), MonsterID: ids.monster });
  const byString = await callJson(HUNTING, 'GetMonster', { DevID: String(svc.key.devId), DevKey: svc.key.devKey, MonsterID: ` ${ids.monster} ` });
  expect(byString.status).toBe(200);
  expect(byString.body).toBe(byNumber.body);
  expect((await callJson(WEAPONS, 'GetWeapons', { ...creds(), SearchWord: 12 })).status).toBe(200);
  expect((await callJson(WEAPONS, 'GetWeapons', { ...creds(), SearchWord: null })).status).toBe(200);
});

const error = (a: Answer) => JSON.parse(a.body) as { Message: string; ExceptionType: string; Code: string; Parameter?: string };

test.each([
  ['a missing parameter', { MonsterID: undefined }, 400, 'MissingParameter', 'MonsterID'],
  ['a fraction for an int', { MonsterID: 1.5 }, 400, 'InvalidParameter', 'MonsterID'],
  ['true for an int', { MonsterID: true }, 400, 'InvalidParameter', 'MonsterID'],
  ['an object for an int', { MonsterID: { a: 1 } }, 400, 'InvalidParameter', 'MonsterID'],
  ['an int beyond 32 bits', { MonsterID: 2 ** 31 }, 400, 'InvalidParameter', 'MonsterID'],
  ['an unknown monster', { MonsterID: 2147483647 }, 404, 'NotFound', undefined],
])('%s: {"Message","ExceptionType","Code"} with the HTTP status', async (_what, params, status, code, parameter) => {
  const answer = await callJson(HUNTING, 'GetMonster', { ...creds(), ...params });
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toBe(JSON_TYPE);
  expect(error(answer)).toEqual({ Message: expect.any(String), ExceptionType: 'ServiceError', Code: code, ...(parameter ? { Parameter: parameter } : {}) });
});

test('an object for a string parameter is InvalidParameter; a parameter given twice is too', async () => {
  expect(error(await callJson(WEAPONS, 'GetWeapons', { ...creds(), SearchWord: ['a'] }))).toMatchObject({ Code: 'InvalidParameter', Parameter: 'SearchWord' });
  const twice = `{"DevID":${svc.key.devId},"DevKey":${JSON.stringify(svc.key.devKey)},"MonsterID":1,"MonsterID":2}`;
  const answer = await post(svc.url, `${HUNTING}/GetMonster`, twice);
  expect(answer.status).toBe(400);
  expect(error(answer)).toMatchObject({ Code: 'InvalidParameter', Parameter: 'MonsterID' });
});

test('credentials: missing, wrong, wrongly typed or repeated is AuthenticationFailed (403), checked before the parameters', async () => {
  const cases: string[] = [
    JSON.stringify({ MonsterID: 'x' }),
    JSON.stringify({ DevID: svc.key.devId, DevKey: 'wrong', MonsterID: 'x' }),
    JSON.stringify({ DevID: true, DevKey: svc.key.devKey, MonsterID: 1 }),
    JSON.stringify({ DevID: svc.key.devId, DevKey: 7, MonsterID: 1 }),
    `{"DevID":${svc.key.devId},"DevKey":${JSON.stringify(svc.key.devKey)},"DevKey":"other","MonsterID":1}`,
  ];
  for (const body of cases) {
    const answer = await post(svc.url, `${HUNTING}/GetMonster`, body);
    expect({ body, status: answer.status, code: error(answer).Code }).toEqual({ body, status: 403, code: 'AuthenticationFailed' });
  }
});

test('unreadable input: invalid JSON, not an object, too deep, too many members is BadRequest (400)', async () => {
  const prefix = `{"DevID":${svc.key.devId},"DevKey":${JSON.stringify(svc.key.devKey)},`;
  const bodies = [
    '{"DevID": 1,',
    '[1, 2]',
    '"text"',
    `${prefix}"x":${'['.repeat(40)}${']'.repeat(40)},"MonsterID":1}`,
    `${prefix}${Array.from({ length: 70 }, (_, i) => `"p${i}":1`).join(',')},"MonsterID":1}`,
  ];
  for (const body of bodies) {
    const answer = await post(svc.url, `${HUNTING}/GetMonster`, body);
    expect({ body: body.slice(0, 40), status: answer.status, code: error(answer).Code }).toEqual({ body: body.slice(0, 40), status: 400, code: 'BadRequest' });
  }
});

describe('the limits at their bounds: 32 levels of nesting and 64 members are read, one more is BadRequest', () => {
  const prefix = () => `{"DevID":${svc.key.devId},"DevKey":${JSON.stringify(svc.key.devKey)},"MonsterID":${ids.monster}`;
  const status = async (body: string) => {
    const answer = await post(svc.url, `${HUNTING}/GetMonster`, body);
    return answer.status === 200 ? 200 : `${answer.status} ${error(answer).Code}`;
  };
  // The parameter object is level 1; an unknown member is ignored.
  const arrays = (levels: number) => `${prefix()},"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
  const objects = (levels: number) => `${prefix()},"x":${'{"y":'.repeat(levels - 2)}{}${'}'.repeat(levels - 2)}}`;
  const members = (n: number) => `${prefix()}${Array.from({ length: n - 3 }, (_, i) => `,"p${i}":1`).join('')}}`;

  test.each([
    ['arrays', arrays],
    ['objects', objects],
  ])('nesting in %s', async (_kind, nested) => {
    expect(await status(nested(32))).toBe(200);
    expect(await status(nested(33))).toBe('400 BadRequest');
  });

  test('members of the parameter object', async () => {
    expect(await status(members(64))).toBe(200);
    expect(await status(members(65))).toBe('400 BadRequest');
  });
});

test('unknown operation 404, other media types go to HTTP POST (415), GET is HTTP GET', async () => {
  const unknown = await callJson(HUNTING, 'GetNothing', creds());
  expect([unknown.status, error(unknown).Code]).toEqual([404, 'UnknownOperation']);
  const plain = await post(svc.url, `${HUNTING}/GetMonster`, JSON.stringify(creds()), { 'Content-Type': 'text/plain' });
  expect(plain.status).toBe(415);
  expect(plain.headers.get('content-type')).toBe('text/xml; charset=utf-8');
  // Paths match case-insensitively, operation names exactly.
  expect((await post(svc.url, '/api/HUNTING.asmx/GetMonster', JSON.stringify({ ...creds(), MonsterID: ids.monster }))).status).toBe(200);
  expect((await post(svc.url, '/API/hunting.asmx/getmonster', JSON.stringify({ ...creds(), MonsterID: ids.monster }))).status).toBe(404);
});

describe('limits', () => {
  let app: ServedApp;
  beforeAll(async () => {
    app = await serveOver(svc.db, { SVAPI_MAX_BODY: '1024', SVAPI_RATE_LIMIT: '3' }, { captureLog: true });
  });
  afterAll(() => app.close());

  test('a body over SVAPI_MAX_BODY is 413', async () => {
    const answer = await callJson(HUNTING, 'GetMonster', { ...creds(), MonsterID: 1, pad: 'x'.repeat(2000) }, app.url);
    expect([answer.status, error(answer).Code]).toEqual([413, 'RequestTooLarge']);
  });

  test('the per-DevID rate limit: 429 with Retry-After; logged as json', async () => {
    const key = await createKey(svc.db.knex, 'json rate');
    const params = { DevID: key.devId, DevKey: key.devKey, MonsterID: ids.monster };
    for (let i = 0; i < 3; i++) expect((await callJson(HUNTING, 'GetMonster', params, app.url)).status).toBe(200);
    const limited = await callJson(HUNTING, 'GetMonster', params, app.url);
    expect([limited.status, error(limited).Code]).toEqual([429, 'RateLimited']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const id = limited.headers.get('x-request-id');
    const line = await waitForLine(app, id!);
    expect(line).toMatchObject({ binding: 'json', operation: 'GetMonster', outcome: 'RateLimited', status: 429 });
  });
});

test('beyond SVAPI_MAX_IN_FLIGHT a JSON call is refused with 503 and Retry-After', async () => {
  const target = new URL(svc.db.url);
  const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  await proxy.start();
  const app = await serveOver(svc.db, { SVAPI_MAX_IN_FLIGHT: '1', SVAPI_CACHE_MB: '0', SVAPI_KEY_CACHE_MS: '0', SVAPI_DB_TIMEOUT_MS: '60000' }, { databaseUrl: proxy.urlFor(svc.db.url) });
  try {
    proxy.freeze();
    const held = callJson(HUNTING, 'GetMonster', { ...creds(), MonsterID: ids.monster }, app.url);
    while (!(await send(`${app.url}/metrics`)).body.includes('svapi_requests_in_flight 1')) await new Promise((r) => setImmediate(r));
    const answer = await callJson(HUNTING, 'GetMonster', { ...creds(), MonsterID: ids.monster }, app.url);
    expect([answer.status, error(answer).Code, answer.headers.get('retry-after')]).toEqual([503, 'ServiceUnavailable', '1']);
    proxy.resume();
    expect((await held).status).toBe(200);
  } finally {
    await app.close();
    await proxy.stop();
  }
});

/** The access-log line of a request: written when its response closes, so awaited, not slept for. */
async function waitForLine(app: ServedApp, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const line = app.log.find((l) => l.requestId === id);
    if (line) return line;
    await new Promise((r) => setImmediate(r));
  }
}
