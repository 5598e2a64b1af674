#!/usr/bin/env node
// `node bin/run-ts.js file.ts args...`: run a TypeScript file of the project from source (tsx, a
// dev dependency): the scripts, and in tests the CLI itself (`node bin/run-ts.js src/cli.ts ...`).
const path = require('node:path');
const tsx = require.resolve('tsx/cjs');
require(tsx);
// Processes the script forks (cluster workers re-run process.argv[1]) load TypeScript too.
process.execArgv.push('--require', tsx);
const script = path.resolve(process.argv[2]);
process.argv.splice(1, 2, script);
require(script);
