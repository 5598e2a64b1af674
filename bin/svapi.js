#!/usr/bin/env node
// The compiled CLI: `npm run build` writes dist/ (`npm ci` and `npm start` run it).
const fs = require('node:fs');
const path = require('node:path');
const cli = path.join(__dirname, '..', 'dist', 'src', 'cli.js');
if (!fs.existsSync(cli)) {
  console.error(`svapi: ${cli} is missing: run \`npm run build\` first`);
  process.exit(1);
}
require(cli);
