// `node xmllint-wasm-cli.js --schema <xsd> <file>...`: schema validation with xmllint-wasm (libxml2's
// xmllint built to WebAssembly, from npm), for machines without Debian's xmllint. Reports as
// xmllint does on stderr, each file's messages and a "<file> validates" or "<file> fails to
// validate" line naming it by its path; exits 0 when every file is valid, 3 when one is not.
const fs = require('node:fs');
const path = require('node:path');
const { validateXML } = require('xmllint-wasm');

const args = process.argv.slice(2);
const at = args.indexOf('--schema');
const schema = args[at + 1];
const files = args.filter((_, i) => i !== at && i !== at + 1);
const read = (p) => ({ fileName: path.basename(p), contents: fs.readFileSync(p, 'utf8') });

validateXML({ xml: files.map(read), schema: [read(schema)], initialMemoryPages: 512, maxMemoryPages: 4096 }).then(
  (result) => {
    const failed = new Set(result.errors.map((e) => e.loc?.fileName).filter(Boolean));
    const lines = [];
    for (const e of result.errors) lines.push(e.rawMessage);
    for (const f of files) lines.push(`${f} ${failed.has(path.basename(f)) ? 'fails to validate' : 'validates'}`);
    process.stderr.write(`${lines.join('\n')}\n`);
    process.exit(result.valid ? 0 : 3);
  },
  (e) => {
    process.stderr.write(`xmllint-wasm: ${e && e.message}\n`);
    process.exit(2);
  },
);
