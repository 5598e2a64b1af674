/**
 * `npm run explain -- [--database-url <url>] [--dataset sample|scale100]`: the plans of the
 * benchmark's database reads. Every operation of the benchmark runs once through the service's own
 * query code; each statement it sent is then run again under EXPLAIN (ANALYZE, BUFFERS), and the
 * plan is printed: for a named statement the generic plan (prepared, plan_cache_mode =
 * force_generic_plan), which the service may settle on; for the others the plan for the values.
 * A sequential scan of a data table (anything but the small lookup tables) fails the run: the
 * reads must stay index-bound as the data grows.
 */
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { loadConfig } from '../src/config';
import { createKnex } from '../src/db/connect';
import { endReadPool } from '../src/db/read-pool';
import { onRead } from '../src/db/queries/statements';
import { findOperation, type EndpointName } from '../src/operations/catalog';
import { decodeParams } from '../src/pipeline/decode';
import { operations, PROFILES } from './lib/cases';
import { databaseUrl } from './lib/database';
import { genericPlan } from './lib/plans';

const ENDPOINT_OF: Record<string, EndpointName> = {
  '/API/hunting.asmx': 'hunting', '/api/weapons.asmx': 'weapons', '/api/item.asmx': 'item', '/api/auction.asmx': 'auction',
};
/** Tables whose size grows with the data; a Seq Scan on one of them is a finding. */
const DATA_TABLES = ['weapons', 'weapon_damage', 'items', 'monsters', 'players', 'hunting_globals'];

const { values: args } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'scale100' },
    'database-url': { type: 'string' },
    'server-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

async function main(): Promise<number> {
  const url = args['database-url'] ?? databaseUrl(args['server-url']!, 'svapi_scale100');
  const profile = PROFILES[args.dataset === 'sample' ? 'sample' : 'generated'];
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'warn' });
  const knex = createKnex(url, 'service', config, false);
  const statements: { sql: string; bindings: readonly unknown[]; name?: string }[] = [];
  onRead(knex, (s) => statements.push({ sql: s.text, bindings: s.values, name: s.name }));
  // The captured statements are in the server's own form ($1, $2): run them on a plain client.
  const client = new Client({ connectionString: url });
  await client.connect();
  let findings = 0;
  try {
    for (const benchOp of operations(profile)) {
      const op = findOperation(ENDPOINT_OF[benchOp.path], benchOp.name)!;
      statements.length = 0;
      await op.run({ knex, config }, decodeParams(op, Object.fromEntries(benchOp.params)));
      for (const { sql, bindings, name } of [...statements]) {
        const lines = name
          ? await genericPlan((q) => client.query(q), knex, sql, bindings, '(ANALYZE, BUFFERS)')
          : await customPlan(client, sql, bindings);
        const seq = lines.filter((l) => DATA_TABLES.some((t) => new RegExp(`Seq Scan on ${t}\\b`).test(l)));
        findings += seq.length;
        const kind = name ? `named statement ${name}: its generic plan` : 'planned for its values';
        console.log(`\n## ${benchOp.label} (${kind})${seq.length ? '   <-- SEQUENTIAL SCAN OF A DATA TABLE' : ''}\n${sql}\n${lines.map((l) => `    ${l}`).join('\n')}`);
      }
    }
  } finally {
    await client.end();
    await endReadPool(knex);
    await knex.destroy();
  }
  console.log(findings ? `\n${findings} sequential scan(s) of data tables` : '\nno sequential scan of a data table');
  return findings ? 1 : 0;
}

async function customPlan(client: Client, sql: string, bindings: readonly unknown[]): Promise<string[]> {
  const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, bindings as unknown[]);
  return plan.rows.map((row: Record<string, string>) => row['QUERY PLAN']);
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
