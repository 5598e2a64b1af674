// The test files `npm test` leaves out and `npm run test:all` (and CI) runs: whole processes,
// other toolkits, a browser, several instances, large data. Each takes minutes on two cores, or
// needs programs beyond Node (see NEEDS).

/** File names under test/, without `.test.ts`. */
const END_TO_END = [
  'browser', // headless Chromium
  'interop-zeep', // Python zeep
  'interop-axis-mono', // Apache Axis 1.4 (Java) and Mono's wsdl
  'legacy-wsdl-node-soap', // node-soap clients built from the legacy WSDLs, three namespace forms
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
];

const NEEDS = 'chromium, python3-zeep, libaxis-java with a JDK, mono-devel, redis-server, haproxy';

module.exports = { END_TO_END, NEEDS };
