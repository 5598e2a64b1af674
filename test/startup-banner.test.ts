import { createKey } from '../src/auth/keys';
import { freshDatabase, type TestDatabase } from './support/db';
import { spawnServe } from './support/spawn-serve';

// What `svapi serve` prints once it listens: the URL to call, and where the process really
// listens, which in a container is not the published port (docker run -p 9000:8080).
let db: TestDatabase;
let key: { devId: number; devKey: string };
beforeAll(async () => {
  db = await freshDatabase({ seed: true });
  key = await createKey(db.knex, 'banner');
}, 60_000);
afterAll(() => db.destroy());

/** The lines `serve` prints up to its database line, then stops it. */
async function banner(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const served = await spawnServe(args, { LOG_LEVEL: 'silent', SVAPI_DB_POOL_MAX: '2', ...env }, { over: { db, key } });
  try {
    await served.line((l) => l.startsWith('  database:'));
    return served.lines.slice(0, served.lines.findIndex((l) => l.startsWith('  database:')) + 1);
  } finally {
    await served.stop();
  }
}

const addressLine = (port: string) => `  address:   127.0.0.1:${port} (in a container, the port published for it may differ: docker run -p <port>:${port})`;

test.each([
  ['one process', []],
  ['two workers', ['--workers', '2']],
])('%s: the banner says the URL and the address and port the process listens on', async (_, args) => {
  const lines = await banner(args);
  const port = /^svapi listening on http:\/\/127\.0\.0\.1:(\d+)$/.exec(lines[0])?.[1];
  expect(port).toMatch(/^\d+$/);
  expect(lines[1]).toBe(addressLine(port!));
}, 120_000);

test('with SVAPI_PUBLIC_URL the URL is the published one and the address line still says where the process listens', async () => {
  const lines = await banner([], { SVAPI_PUBLIC_URL: 'http://svapi.example:9000' });
  expect(lines[0]).toBe('svapi listening on http://svapi.example:9000');
  const port = /^ {2}address: {3}127\.0\.0\.1:(\d+) /.exec(lines[1])?.[1];
  expect(Number(port)).toBeGreaterThan(0);
  expect(lines[1]).toBe(addressLine(port!));
}, 120_000);
