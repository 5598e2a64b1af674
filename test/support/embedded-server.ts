// Serves an in-memory PGlite for one test file, outside jest's module sandbox (PGlite loads its
// WASM with a dynamic import that jest's VM does not allow). Prints the URL, exits when stdin closes.
import { startEmbedded } from '../../src/db/embedded';

startEmbedded(':memory:').then((server) => {
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  const stop = () => server.stop().finally(() => process.exit(0));
  process.stdin.on('end', stop).resume();
  process.on('SIGTERM', stop);
}, (e) => {
  console.error(e);
  process.exit(1);
});
