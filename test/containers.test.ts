import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { configReference } from '../src/config';

// No Docker engine runs here: these check the files are correct by construction.
const ROOT = path.resolve(__dirname, '..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'));

  test('has Postgres with a volume and a health check, a one-shot migrate + seed step, and the service', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['db', 'migrate', 'svapi']);
    const { db, migrate, svapi } = compose.services;
    expect(db.image).toMatch(/^postgres:/);
    expect(db.volumes.some((v: string) => v.endsWith(':/var/lib/postgresql/data'))).toBe(true);
    expect(db.healthcheck.test.join(' ')).toMatch(/pg_isready/);
    expect(migrate.restart).toBe('no');
    expect(migrate.depends_on.db.condition).toBe('service_healthy');
    expect(svapi.depends_on.migrate.condition).toBe('service_completed_successfully');
  });

  test('wires the service to the database by environment variables the service knows', () => {
    const known = new Set(configReference().map((v) => v.name));
    for (const name of ['migrate', 'svapi']) {
      const env = compose.services[name].environment;
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/\w+:\w+@db:5432\/\w+$/);
      for (const key of Object.keys(env)) expect(known).toContain(key);
    }
    const { POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB } = compose.services.db.environment;
    expect(compose.services.svapi.environment.DATABASE_URL).toBe(`postgres://${POSTGRES_USER}:${POSTGRES_PASSWORD}@db:5432/${POSTGRES_DB}`);
  });

  test('the migrate step runs the commands the README documents', () => {
    const command = compose.services.migrate.entrypoint.join(' ');
    expect(command).toContain('node bin/svapi.js migrate');
    expect(command).toContain('node bin/svapi.js load seeds/data');
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
