// Serves an in-memory PGlite for one test file, outside jest's module sandbox (PGlite loads its
// WASM with a dynamic import that jest's VM does not allow). Starts from a copy of the database
// files named by argv[2] when given (test/support/db-templates.ts). Prints the URL; on a line
// `dump FILE` on stdin writes the database's files to FILE and prints `dumped`; exits when stdin
// closes.
import fs from 'node:fs';
import readline from 'node:readline';
import { startEmbedded } from '../../src/db/embedded';

const template = process.argv[2];
const loadDataDir = template ? new Blob([fs.readFileSync(template)]) : undefined;

startEmbedded(':memory:', { loadDataDir }).then((server) => {
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  const stop = () => server.stop().finally(() => process.exit(0));
  const commands = readline.createInterface({ input: process.stdin });
  commands.on('line', (line) => {
    const file = /^dump (.+)$/.exec(line)?.[1];
    if (!file) return;
    server.dump()
      .then(async (blob) => fs.writeFileSync(file, Buffer.from(await blob.arrayBuffer())))
      .then(() => process.stdout.write('dumped\n'), (e) => {
        console.error(e);
        process.exit(1);
      });
  });
  commands.on('close', stop);
  process.on('SIGTERM', stop);
}, (e) => {
  console.error(e);
  process.exit(1);
});
