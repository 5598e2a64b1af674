// `node xmllint-wasm-cli.js --schema <xsd> <file>`: schema validation with xmllint-wasm (libxml2's
// xmllint built to WebAssembly, from npm), for machines without Debian's xmllint. Exits 0 when
// the file is valid; otherwise prints xmllint's messages on stderr and exits 1.
const fs = require('node:fs');
const path = require('node:path');
const { validateXML } = require('xmllint-wasm');

const args = process.argv.slice(2);
const schema = args[args.indexOf('--schema') + 1];
const file = args[args.length - 1];
const read = (p) => ({ fileName: path.basename(p), contents: fs.readFileSync(p, 'utf8') });

validateXML({ xml: [read(file)], schema: [read(schema)], initialMemoryPages: 512, maxMemoryPages: 4096 }).then(
  (result) => {
    if (result.valid) process.exit(0);
    process.stderr.write(`${result.rawOutput}\n`);
    process.exit(1);
  },
  (e) => {
    process.stderr.write(`xmllint-wasm: ${e && e.message}\n`);
    process.exit(2);
  },
);
