#!/usr/bin/env node
// Runs the TypeScript CLI directly (tsx), so `npx svapi` works from a checkout after `npm ci`.
require('tsx/cjs');
require('../src/cli.ts');
