// The test files `npm test` leaves out and `npm run test:all` (and CI) runs: whole processes,
// other toolkits, a browser, several instances, large data. Each takes minutes on two cores, or
// needs programs beyond Node (see NEEDS).

/** File names under test/, without `.test.ts`. */
const END_TO_END = [
  'browser', // headless Chromium
  'interop-zeep', // Python zeep
  'interop-axis-mono', // Apache Axis 1.4 (Java) and Mono's wsdl
  'legacy-wsdl-node-soap', // node-soap clients built from the legacy WSDLs, three namespace forms
  'stub-api', // stubs from wsimport, Mono's wsdl and gSOAP's wsdl2h: served WSDL against the legacy one
  'workers', // svapi serve --workers
  'host-limits', // svapi serve --workers
  'redis-limits', // two clustered instances and a Redis server
  'multi-instance', // two clustered instances behind HAProxy, with Redis
  'shutdown', // svapi serve under load, SIGTERM
  'embedded', // svapi serve creating its own embedded database, twice
  'embedded-template', // the first start's database, made once (PGlite's initdb)
  'compiled-bin', // builds dist/ and runs it
  'knexfile', // knex's own CLI
  'dba-migrations', // knex's migrate:make, latest and rollback, and svapi migrate, in a copy of the project
  'cli', // svapi's CLI run some twenty times
  'search-index', // EXPLAIN over 100,000-row tables
  'load-shedding', // svapi serve under load from autocannon, up to 1,024 connections
  'placement', // svapi serve --workers 2 under load, with the cores kept busy
];

const NEEDS = 'chromium, python3-zeep, libaxis-java and libjaxws-java with a JDK, mono-devel, gsoap, redis-server, haproxy';

/**
 * Test files whose every test needs a Postgres server (second sessions, LISTEN/NOTIFY): without
 * DATABASE_URL they are left out (they could only skip, and CI fails on a skipped test) unless
 * named on the command line. The server run of CI runs them.
 */
const SERVER_ONLY = ['load-references', 'multi-instance'];

/**
 * End-to-end files whose subject is the same whichever database the suite uses (other toolkits
 * against the WSDL and the SOAP answers; query plans, which matter on a server): CI runs them in its
 * Postgres pass only (CI_PASS=embedded leaves them out), keeping .ci/run within its 30
 * minutes. `npm run test:all` on the embedded database runs them.
 */
const ONCE_IN_CI = ['interop-axis-mono', 'interop-zeep', 'stub-api', 'legacy-wsdl-node-soap', 'browser', 'search-index'];

/** Whether the test file `name` is named on jest's command line. */
const named = (name) => process.argv.some((arg) => new RegExp(`(^|/)${name}\\.test`).test(arg));

module.exports = { END_TO_END, NEEDS, ONCE_IN_CI, SERVER_ONLY, named };
