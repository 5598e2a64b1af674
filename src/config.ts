import { z } from 'zod';

// Each check's message is what the setting takes: a bad value is reported as
// `NAME: "value" is not <what it takes> (<description>)`.
const BOOLEANS = ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'] as const;
const bool = z
  .enum(BOOLEANS, { error: 'true or false (or 1/0, yes/no, on/off)' })
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));
/** SVAPI_DB_POOL_MAX's default; `serve` may pick fewer (db/pool-size.ts). */
export const DEFAULT_POOL_MAX = 10;

const int = (min: number, max = 2_147_483_647) => {
  const error = max === 2_147_483_647 ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};
const url = (what = 'a URL') => z.string().url({ error: what });

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const SCHEDULING = ['adaptive', 'pack', 'none', 'rr'] as const;

/** Every setting, its default and what it allows. The README's table is written from this. */
const schema = z.object({
  DATABASE_URL: url('a postgres:// or postgresql:// URL').regex(/^postgres(ql)?:\/\//, { error: 'a postgres:// or postgresql:// URL' }).optional().describe('Postgres URL; unset = embedded PGlite database'),
  SVAPI_DATA_DIR: z.string().min(1).default('.svapi-data').describe('folder of the embedded database'),
  HOST: z.string().min(1).default('0.0.0.0').describe('address to listen on'),
  PORT: int(0, 65535).default(8080).describe('port to listen on'),
  SVAPI_NAMESPACE: z.string().min(1).default('SVAPI').describe('XML target namespace of the service'),
  SVAPI_PUBLIC_URL: url().optional().describe('base URL published in WSDLs and pages'),
  SVAPI_TRUST_PROXY: bool.default(false).describe('honour X-Forwarded-Proto/Host/For from one proxy in front'),
  SVAPI_MAX_RESULTS: int(1).default(1000).describe('most records in a list result'),
  SVAPI_MAX_GLOBALS: int(1).default(1000).describe('NumberOfGlobals is clamped to this'),
  SVAPI_LANDAREA_GLOBALS: int(1).default(100).describe('globals returned by GetLandareaGlobals'),
  SVAPI_RATE_LIMIT: int(1).default(600).describe('requests a minute per DevID'),
  SVAPI_AUTH_FAIL_LIMIT: int(1).default(30).describe('failed credentials a minute per client address'),
  SVAPI_REDIS_URL: url('a redis:// or rediss:// URL').regex(/^rediss?:\/\//, { error: 'a redis:// or rediss:// URL' }).optional()
    .describe('Redis (redis://[:password@]host:port[/db]) where every instance counts the limits; unset = each host counts its own'),
  SVAPI_REDIS_TIMEOUT_MS: int(1, 10_000).default(20).describe('longest wait for Redis on a request, in milliseconds; beyond it the host counts'),
  SVAPI_DB_TIMEOUT_MS: int(1).default(5000).describe('statement time-out in milliseconds'),
  SVAPI_MAX_BODY: int(1).default(65536).describe('largest request body in bytes (after inflation)'),
  SVAPI_KEY_CACHE_MS: int(0, 5000).default(2000).describe('how long a checked credential is cached'),
  SVAPI_CACHE_MB: int(0, 4096).default(64).describe('memory for cached answers per process, in MiB; 0 turns the cache off'),
  SVAPI_CACHE_CHECK_MS: int(100, 60_000).default(1000).describe('how often the data version is checked, in milliseconds'),
  SVAPI_HEADERS_TIMEOUT_MS: int(1).default(10_000).describe('time a client has to send the request headers, in milliseconds'),
  SVAPI_REQUEST_TIMEOUT_MS: int(1).default(30_000).describe('time a client has to send the whole request, in milliseconds'),
  SVAPI_DB_POOL_MAX: int(1, 1000).default(DEFAULT_POOL_MAX).describe('database connections per process; serve with the database on this host: cores x 2 + 1 among its workers, 2 to 10 each'),
  SVAPI_MAX_IN_FLIGHT: int(1).default(5000).describe('hard ceiling on the operation calls a process works on at once, far above normal use; beyond it a call is refused at once with ServiceUnavailable and Retry-After'),
  SVAPI_QUEUE_TARGET_MS: int(1, 10_000).default(200).describe('a call\'s deadline for a database connection is 5 x this from its arrival: it is refused when it would wait longer; waits above it for a whole 5 x this make a standing queue, in which a call whose query ends past its deadline is refused rather than answered'),
  SVAPI_MAX_EVENT_LOOP_DELAY_MS: int(1, 60_000).default(500).describe('longest event-loop delay in a 250 ms reading (with the loop busy 90% of it, twice in a row) beyond which a process refuses every operation call until it drops'),
  SVAPI_CLUSTER_SCHEDULING: z.enum(SCHEDULING, { error: 'adaptive, pack, none or rr' }).default('adaptive')
    .describe('how `serve --workers N` hands out new connections: adaptive = each worker accepts its own, and a worker saturated beside an idle one hands it half its connections (README: Several processes); pack = as adaptive, and while other processes keep the cores busy connections are packed onto as few workers as carry the load; none = each worker accepts its own, nothing moved; rr = the primary hands them to the workers in turn'),
  SVAPI_INSTANCES: int(1, 1000).default(1).describe('instances of the service on this database: at start-up, instances x workers x (SVAPI_DB_POOL_MAX + 1) is checked against the server\'s max_connections'),
  SVAPI_DRAIN_MS: int(0, 60_000).default(0).describe('on SIGTERM, how long /readyz answers 503 while requests are still served, before the port closes (behind a balancer: above its check interval x fall)'),
  SVAPI_DB_NAMED_STATEMENTS: bool.default(true).describe('run fixed-text reads as named prepared statements on a Postgres server (false behind a pooler that cannot keep them)'),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `one of ${LOG_LEVELS.join(', ')}` }).default('info').describe('log level'),
});

export type Config = z.output<typeof schema>;
export type Setting = keyof Config;

/** What the database code reads: all that `migrate`, `load`, `keys` and the knexfile need. */
export const DATABASE_SETTINGS = [
  'DATABASE_URL', 'SVAPI_DATA_DIR', 'SVAPI_DB_TIMEOUT_MS', 'SVAPI_DB_POOL_MAX', 'SVAPI_DB_NAMED_STATEMENTS', 'LOG_LEVEL',
] as const satisfies readonly Setting[];
export type DatabaseConfig = Pick<Config, (typeof DATABASE_SETTINGS)[number]>;

/** A setting the process cannot run with; the CLI exits with CONFIG_EXIT_CODE. */
export class ConfigError extends Error {}

/** The exit code of every configuration mistake: a bad setting or a bad command-line argument. */
export const CONFIG_EXIT_CODE = 2;

/** Every setting, validated (what `serve` reads). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parse(schema, env);
}

/** The database settings only: a bad value of a setting only `serve` reads does not stop a command that ignores it. */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  return parse(schema.pick(Object.fromEntries(DATABASE_SETTINGS.map((n) => [n, true])) as { [K in (typeof DATABASE_SETTINGS)[number]]: true }), env);
}

/** Whether `name` is set (not left to its default): an empty variable means "not set", as in most shells' `VAR= cmd`. */
export function settingGiven(name: Setting, env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[name];
  return value !== undefined && value !== '';
}

function parse<T extends z.ZodTypeAny>(part: T, env: NodeJS.ProcessEnv): z.output<T> {
  const present = Object.fromEntries(Object.entries(env).filter(([name]) => settingGiven(name as Setting, env)));
  const parsed = part.safeParse(present);
  if (!parsed.success) {
    // One line per variable (a URL can fail two checks saying the same), its value left out when it may hold a password.
    const lines = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0]);
      const shown = name.endsWith('_URL') ? 'the value' : JSON.stringify(present[name]);
      if (!lines.has(name)) lines.set(name, `${name}: ${shown} is not ${issue.message}${describe(name)}`);
    }
    throw new ConfigError([...lines.values()].join('\n'));
  }
  return parsed.data;
}

function describe(name: string): string {
  const field = schema.shape[name as Setting];
  return field?.description ? ` (${field.description})` : '';
}

/** Variable names, defaults and descriptions (all, or the ones named), for `--help` and the README. */
export function configReference(names: readonly Setting[] = Object.keys(schema.shape) as Setting[]): { name: string; default: string; description: string }[] {
  return names.map((name) => {
    const field = schema.shape[name];
    const result = field.safeParse(undefined);
    return {
      name,
      default: result.success && result.data !== undefined ? String(result.data) : '(unset)',
      description: field.description ?? '',
    };
  });
}

/** The settings as `--help` lists them. */
export function environmentHelp(names?: readonly Setting[]): string {
  return `\nEnvironment (validated at start-up):\n${configReference(names)
    .map((v) => `  ${v.name.padEnd(26)} ${v.description} [default: ${v.default}]`)
    .join('\n')}\n`;
}
