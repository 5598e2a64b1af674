#!/usr/bin/env node
// `prepare` and `prestart`: `npm run build` where the TypeScript compiler is installed (a checkout:
// `npm start` serves the current sources). A production install (`npm prune --omit=dev`) has no
// compiler, and its dist/ was built before the prune: it is used as it is. `npx svapi` installs
// this package into npm's cache, which runs `prepare` there too.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
let compiler = true;
try {
  require.resolve('typescript', { paths: [root] });
} catch {
  compiler = false;
}

if (compiler) {
  const npm = process.env.npm_execpath;
  const build = npm
    ? spawnSync(process.execPath, [npm, 'run', '--silent', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(build.status ?? 1);
}
if (!fs.existsSync(path.join(root, 'dist', 'src', 'cli.js'))) {
  console.error('svapi: dist/ is missing and TypeScript is not installed: build before pruning (`npm ci && npm run build && npm prune --omit=dev`)');
  process.exit(1);
}
