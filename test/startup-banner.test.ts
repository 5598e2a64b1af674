import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { freshDatabase, type TestDatabase } from './support/db';
import { ROOT, SVAPI_SOURCE } from './support/cli';

// What `svapi serve` prints once it listens: the URL to call, and where the process really
// listens, which in a container is not the published port (docker run -p 9000:8080).
let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase({ seed: true });
}, 60_000);
afterAll(() => db.destroy());

/** The lines `serve` prints up to its database line, then stops it. */
async function banner(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const child = spawn(process.execPath, [...SVAPI_SOURCE, 'serve', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      ...(db.embedded ? { SVAPI_SHARED_EMBEDDED: '1' } : {}),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SVAPI_DB_POOL_MAX: '2',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    return await new Promise<string[]>((resolve, reject) => {
      const lines: string[] = [];
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.startsWith('{')) return;
        lines.push(line);
        if (line.startsWith('  database:')) resolve(lines);
      });
      void exited.then((code) => reject(new Error(`serve exited with ${code}: ${lines.join('\n')}`)));
    });
  } finally {
    child.kill('SIGKILL');
    await exited;
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
