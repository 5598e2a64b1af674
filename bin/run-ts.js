#!/usr/bin/env node
// `node bin/run-ts.js file.ts args...`: run a TypeScript script of the project.
const path = require('node:path');
require('tsx/cjs');
const script = path.resolve(process.argv[2]);
process.argv.splice(1, 2, script);
require(script);
