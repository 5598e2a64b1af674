import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { configReference, loadConfig } from '../src/config';
import { haproxyInstalled } from './support/haproxy';
import { need, testIf } from './support/needs';

// No Docker engine runs here: these check the files are correct by construction.
const ROOT = path.resolve(__dirname, '..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'));

  test('has Postgres with a volume and a health check, Redis, a one-shot migrate + seed step, the service and a balancer', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['db', 'lb', 'migrate', 'redis', 'svapi']);
    const { db, migrate, svapi } = compose.services;
    expect(db.image).toMatch(/^postgres:/);
    expect(db.volumes.some((v: string) => v.endsWith(':/var/lib/postgresql/data'))).toBe(true);
    expect(db.healthcheck.test[0]).toMatch(/^CMD/);
    expect(db.healthcheck.test.join(' ')).toMatch(/pg_isready/);
    expect(migrate.restart).toBe('no');
    expect(migrate.depends_on.db.condition).toBe('service_healthy');
    expect(svapi.depends_on.migrate.condition).toBe('service_completed_successfully');
  });

  test('the database is healthy once it accepts TCP connections for the service\'s user and database, not when its init server answers on the socket', () => {
    const { db } = compose.services;
    const check = (db.healthcheck.test as string[]).join(' ').split(/\s+/);
    const option = (flag: string) => check[check.indexOf(flag) + 1];
    expect(check).toContain('pg_isready');
    expect(option('-h')).toBe('127.0.0.1');
    expect(option('-U')).toBe(db.environment.POSTGRES_USER);
    expect(option('-d')).toBe(db.environment.POSTGRES_DB);
  });

  test('migrate waits a bounded time for a database that still refuses connections, then gives up', () => {
    const command = compose.services.migrate.entrypoint.join(' ');
    const wait = /node bin\/svapi\.js migrate --wait (\d+) &&/.exec(command);
    expect(wait).not.toBeNull();
    expect(Number(wait![1])).toBeGreaterThan(0);
    expect(Number(wait![1])).toBeLessThanOrEqual(300);
  });

  test('one build, one tag: the first service to run builds the image, the replicas run the same one', () => {
    const built = Object.entries(compose.services).filter(([, s]) => (s as { build?: unknown }).build !== undefined);
    expect(built.map(([name]) => name)).toEqual(['migrate']);
    const { migrate, svapi } = compose.services;
    expect(migrate.build).toBe('.');
    expect(migrate.image).toMatch(/^svapi:/);
    expect(svapi.image).toBe(migrate.image);
  });

  test('the balancer starts once the replicas are ready, as their /readyz on the port they listen on says', async () => {
    const { lb, svapi } = compose.services;
    expect(lb.depends_on).toEqual({ svapi: { condition: 'service_healthy' } });
    const [kind, ...check] = svapi.healthcheck.test as string[];
    expect(kind).toBe('CMD');
    const script = check[check.indexOf('-e') + 1];
    expect(script).toContain("fetch('http://127.0.0.1:' + process.env.PORT + '/readyz')");
    expect(svapi.environment.PORT).toBe('8080');
    // The check itself, run as Docker runs it: a ready answer exits 0, anything else 1.
    for (const [status, code] of [[200, 0], [503, 1]]) {
      const server = http.createServer((req, res) => {
        res.statusCode = req.url === '/readyz' ? status : 404;
        res.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const exit = await new Promise<number | null>((resolve) => {
        spawn(process.execPath, check.slice(1), { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' }).once('exit', resolve);
      });
      server.close();
      expect({ status, exit }).toEqual({ status, exit: code });
    }
  });

  test('wires the service to the database by environment variables the service knows', () => {
    const known = new Set(configReference().map((v) => v.name));
    for (const name of ['migrate', 'svapi']) {
      const env = compose.services[name].environment;
      expect(() => loadConfig(env)).not.toThrow();
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/\w+:\w+@db:5432\/\w+$/);
      for (const key of Object.keys(env)) expect(known).toContain(key);
    }
    const { POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB } = compose.services.db.environment;
    expect(compose.services.svapi.environment.DATABASE_URL).toBe(`postgres://${POSTGRES_USER}:${POSTGRES_PASSWORD}@db:5432/${POSTGRES_DB}`);
  });

  test('two replicas of the service, with two workers each, count their limits in the Redis service', () => {
    const { svapi, redis } = compose.services;
    expect(svapi.deploy.replicas).toBe(2);
    expect(svapi.ports).toBeUndefined();
    expect(svapi.command).toEqual(['serve', '--workers', '2']);
    expect(redis.image).toMatch(/^redis:/);
    expect(svapi.environment.SVAPI_REDIS_URL).toBe('redis://redis:6379');
    expect(svapi.depends_on.redis).toBeDefined();
  });

  test('the connections the replicas may open fit Postgres\'s default max_connections, and serve is told how many replicas run', () => {
    const { svapi } = compose.services;
    const config = loadConfig(svapi.environment);
    expect(config.SVAPI_INSTANCES).toBe(svapi.deploy.replicas);
    const workers = Number(svapi.command[svapi.command.indexOf('--workers') + 1]);
    // Postgres's defaults: max_connections 100, of which 3 reserved for superusers.
    expect(config.SVAPI_INSTANCES * workers * (config.SVAPI_DB_POOL_MAX + 1)).toBeLessThanOrEqual(97);
  });

  describe('the balancer in front of the replicas', () => {
    const { lb, svapi } = compose.services;
    const mounted = (lb.volumes as string[]).map((v) => v.split(':'));
    const [source] = mounted.find(([, target]) => target === '/usr/local/etc/haproxy/haproxy.cfg') ?? [];
    const cfg = source ? read(source) : '';
    const config = loadConfig(svapi.environment);

    test('is HAProxy with its configuration from the repository, and the only published port', () => {
      expect(lb.image).toMatch(/^haproxy:/);
      expect(source).toBe('./deploy/haproxy.cfg');
      expect(lb.ports).toEqual([`${config.PORT}:${config.PORT}`]);
      expect(cfg).toMatch(new RegExp(`^\\s*bind :${config.PORT}$`, 'm'));
    });

    test('sends requests to every replica by its service name, checked on /readyz', () => {
      expect(cfg).toMatch(/^\s*balance roundrobin$/m);
      expect(cfg).toMatch(/^\s*option httpchk GET \/readyz$/m);
      expect(cfg).toMatch(/^\s*http-check expect status 200$/m);
      const template = /^\s*server-template \S+ (\d+) svapi:(\d+) .*resolvers docker/m.exec(cfg);
      expect(template).not.toBeNull();
      expect(Number(template![1])).toBeGreaterThanOrEqual(svapi.deploy.replicas);
      expect(Number(template![2])).toBe(config.PORT);
    });

    test('a stopping replica drains for longer than the checks take to notice, within the stop grace period', () => {
      const check = /^\s*default-server check inter (\d+)s fall (\d+)/m.exec(cfg);
      const slowest = /^\s*timeout check (\d+)s$/m.exec(cfg);
      expect([check, slowest]).not.toContain(null);
      // The check under way when the drain starts may take its whole time-out; the failing ones are quick.
      expect(config.SVAPI_DRAIN_MS).toBeGreaterThan((Number(slowest![1]) + Number(check![1]) * Number(check![2])) * 1000);
      // The drain, then the 10 s given to requests in flight (src/server.ts SHUTDOWN_GRACE_MS).
      expect(Number(/^(\d+)s$/.exec(svapi.stop_grace_period)![1]) * 1000).toBeGreaterThan(config.SVAPI_DRAIN_MS + 10_000);
      expect(cfg).toMatch(/^\s*retry-on conn-failure empty-response$/m);
      expect(cfg).toMatch(/^\s*option redispatch/m);
    });

    testIf(haproxyInstalled)('haproxy -c accepts the configuration', () => {
      need(haproxyInstalled, 'haproxy is not installed (apt-get install haproxy)');
      const result = spawnSync('haproxy', ['-c', '-f', path.join(ROOT, 'deploy/haproxy.cfg')], { encoding: 'utf8' });
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    });
  });

  test('the migrate step runs the commands the README documents, loading the sample into an empty database only', () => {
    const command = compose.services.migrate.entrypoint.join(' ');
    expect(command).toContain('node bin/svapi.js migrate');
    expect(command).toContain('node bin/svapi.js load --if-empty seeds/data');
    const readme = read('README.md');
    expect(readme).toContain('svapi migrate');
    expect(readme).toContain('svapi load');
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile.split('\n').filter((l) => /^[A-Z]+\s/.test(l));
  const runtime = instructions.slice(instructions.map((l) => l.startsWith('FROM ')).lastIndexOf(true));
  const build = instructions.slice(0, instructions.length - runtime.length);

  test('is multi-stage: builds with every dependency, runs with production dependencies only, as a non-root user', () => {
    expect(instructions.filter((l) => l.startsWith('FROM ')).length).toBe(2);
    expect(build).toContain('RUN npm run build');
    expect(runtime.filter((l) => l.startsWith('RUN npm ')).join('\n')).toMatch(/^RUN npm ci --omit=dev\b/);
    expect(runtime.filter((l) => l.startsWith('USER ')).pop()).toBe('USER node');
  });

  test('without DATABASE_URL the embedded database goes to a folder the node user owns and root\'s group may write (an arbitrary uid has group 0)', () => {
    const env = runtime.find((l) => l.startsWith('ENV SVAPI_DATA_DIR='));
    expect(env).toBe('ENV SVAPI_DATA_DIR=/home/node/.svapi-data');
    const made = runtime.findIndex((l) => l === 'RUN install -d -o node -g 0 -m 0770 /home/node/.svapi-data');
    expect(made).toBeGreaterThan(-1);
    expect(made).toBeLessThan(runtime.indexOf('USER node'));
  });

  test('needs no BuildKit front end from Docker Hub', () => {
    expect(dockerfile).not.toMatch(/^#\s*syntax\s*=/im);
  });

  test('the runtime stage removes npm\'s cache in the layer that fills it', () => {
    const install = runtime.find((l) => l.startsWith('RUN npm ci --omit=dev'));
    expect(install).toMatch(/ && rm -rf \/root\/\.npm$/);
    expect(runtime.filter((l) => l.startsWith('USER ')).slice(0, 1)).toEqual(['USER node']);
    expect(runtime.indexOf(install!)).toBeLessThan(runtime.indexOf('USER node'));
  });

  test('the README describes what it runs', () => {
    const readme = read('README.md');
    for (const line of [...build, ...runtime].filter((l) => l.startsWith('RUN npm '))) {
      const command = line.replace(/^RUN /, '').replace(/ --no-audit --no-fund/, '').replace(/ && .*$/, '');
      expect(readme.replace(/\s+/g, ' ')).toContain(`\`${command}\``);
    }
    expect(readme).not.toMatch(/as the Dockerfile does/);
  });

  test('the build stage copies everything the build compiles', () => {
    const tsconfig = JSON.parse(read('tsconfig.build.json').replace(/^\s*\/\/.*$/gm, ''));
    for (const dir of tsconfig.include) expect(build).toContain(`COPY ${dir} ./${dir}`);
  });

  test('starts `svapi serve`, as the README documents, with the compiled code and everything it reads at run time copied in', () => {
    expect(dockerfile).toContain('ENTRYPOINT ["node", "bin/svapi.js"]');
    expect(dockerfile).toContain('CMD ["serve"]');
    expect(read('README.md')).toContain('svapi serve');
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    for (const dir of ['bin', 'wsdl', 'seeds/data']) expect(runtime).toContain(`COPY ${dir} ./${dir}`);
  });
});
