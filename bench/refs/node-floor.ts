/**
 * Reference (c), the Node floor of the uncached path: the least a Node server does to answer
 * GetMonsterGlobals over HTTP GET from Postgres. node-postgres runs the statement the service
 * sends (its text and name, captured from the service by bench/lib/capture-sql.js) with the
 * query's MonsterID and NumberOfGlobals, rows as arrays, and the answer is one template string.
 * No credentials, limits, logs, metrics, cache or compression; as many processes as `svapi
 * serve` starts (one per core) and the same pool per process. The bench checks that it answers
 * every sample with the service's bytes and sends the service's statements. Loopback only.
 *
 *   DATABASE_URL=... node bin/run-ts.js bench/refs/node-floor.ts <statement JSON: {"text","name"}> [workers] [pool]
 * Prints {"url": "http://127.0.0.1:<port>/API/hunting.asmx", "pid": n} on stdout once every process listens.
 */
import cluster from 'node:cluster';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { Pool } from 'pg';

const PATH = '/API/hunting.asmx';
const workers = Number(process.argv[3] ?? os.availableParallelism());
const poolSize = Number(process.argv[4] ?? 10);

if (cluster.isPrimary && workers > 1) {
  let listening = 0;
  let port = 0;
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('listening', (_w, address) => {
    port = address.port;
    if (++listening === workers) process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}${PATH}`, pid: process.pid })}\n`);
  });
  cluster.on('exit', (_w, code) => {
    if (code) process.exit(1);
  });
  process.once('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
    process.exit(0);
  });
} else {
  serve();
}

function serve(): void {
  const statement = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as { text: string; name: string | null };
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: poolSize });

  // What XML 1.0 cannot carry is replaced; & < > and CR escaped (as the service does).
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  // eslint-disable-next-line no-control-regex -- as above
  const SPECIAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF&<>\r]/;
  const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };
  const esc = (s: string) => (SPECIAL.test(s) ? s.replace(INVALID, '\uFFFD').replace(/[&<>\r]/g, (c) => ESCAPES[c]) : s);
  /** An optional string element: nil when null, empty when '', else its text. */
  const str = (name: string, v: string | null) => (v === null ? `<${name} xsi:nil="true" />` : v === '' ? `<${name} />` : `<${name}>${esc(v)}</${name}>`);
  const opt = (name: string, v: string | null) => (v === null ? '' : str(name, v));
  const time = (utc: string) => {
    const dot = utc.indexOf('.');
    if (dot < 0) return `${utc}Z`;
    let end = utc.length;
    while (end > dot + 1 && utc.charCodeAt(end - 1) === 48) end--;
    return `${utc.slice(0, end === dot + 1 ? dot : end)}Z`;
  };

  // The select list of the service's statement: monster_id, global_type_id, global_value,
  // player_id, landarea_id, time, monster_name, description, item_picture_url, global_type_name,
  // player_name, is_team, area_name, planet_id, planet_name, planet description.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- array rows
  const global = (r: any[]) => `<HuntingGlobal><Monster>${str('MonsterName', r[6])}<MonsterID>${r[0]}</MonsterID>${
    r[7] === null && r[8] === null ? '<Description xsi:nil="true" />' : `<Description>${opt('Description', r[7])}${opt('ItemPictureURL', r[8])}</Description>`
  }</Monster><TimeStamp>${time(r[5])}</TimeStamp><GlobalType>${str('GlobalTypeName', r[9])}<GlobalTypeID>${r[1]}</GlobalTypeID></GlobalType>`
    + `<GlobalValue>${r[2]}</GlobalValue><Player>${str('PlayerName', r[10])}<PlayerID>${r[3]}</PlayerID><IsTeam>${r[11] ? 'true' : 'false'}</IsTeam></Player>`
    + `<Landarea>${str('AreaName', r[12])}<AreaID>${r[4]}</AreaID>${
      r[13] === null ? '<Planet xsi:nil="true" />' : `<Planet>${str('PlanetName', r[14])}<PlanetID>${r[13]}</PlanetID>${str('Description', r[15] || null)}</Planet>`
    }</Landarea></HuntingGlobal>`;

  const server = http.createServer(async (req, res) => {
    try {
      const query = new URL(req.url!, 'http://x').searchParams;
      const { rows } = await pool.query<unknown[]>({
        text: statement.text, name: statement.name ?? undefined, rowMode: 'array',
        values: [Number(query.get('MonsterID')), Number(query.get('NumberOfGlobals'))],
      });
      let body = '';
      for (const r of rows) body += global(r);
      const xml = `<?xml version="1.0" encoding="utf-8"?><ArrayOfHuntingGlobal xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="SVAPI">${body}</ArrayOfHuntingGlobal>\n`;
      res.writeHead(200, { 'Content-Type': 'text/xml; charset=utf-8', 'Content-Length': Buffer.byteLength(xml) });
      res.end(xml);
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    if (cluster.isWorker) return;
    const { port } = server.address() as { port: number };
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}${PATH}`, pid: process.pid })}\n`);
  });
  process.once('SIGTERM', () => {
    server.close();
    void pool.end().then(() => process.exit(0));
  });
}
