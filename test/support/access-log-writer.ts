// One process writing access-log lines as `svapi serve`'s workers do (src/log.ts createAccessLog:
// batches on stdout, which the workers share): `node bin/run-ts.js test/support/access-log-writer.ts
// <name> <lines>`. Each line is JSON naming the writer and its number, padded to about 290 bytes
// with a character UTF-8 writes in two bytes, as a request's path can hold.
import { createAccessLog } from '../../src/log';

const [name, count] = process.argv.slice(2);
const log = createAccessLog('info')!;
const pad = 'é'.repeat(60) + 'x'.repeat(150);
for (let i = 0; i < Number(count); i++) log.write(`${JSON.stringify({ w: name, i, pad })}\n`);
