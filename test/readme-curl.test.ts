// The README's "Calling the service with curl" section works as written: every curl line of its
// code blocks is run by bash against a running service, with URL, DEVID and DEVKEY set as the
// section tells the reader to set them, and must answer the operation's XML document (its SOAP
// envelope for a SOAP example). Every operation has a GET and a POST example, and there is a
// SOAP 1.1 and a SOAP 1.2 one.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { OPERATIONS } from '../src/operations/catalog';
import { startService, type TestService } from './support/service';
import { SOAP11_NS, SOAP12_NS } from './support/bindings';
import { child, parseXml } from './support/xml-tree';

const HEADING = '## Calling the service with curl';
const VARIABLES = ['URL', 'DEVID', 'DEVKEY'];

/** The section's shell lines: code blocks only, continuation lines joined. */
function sectionLines(): string[] {
  const readme = fs.readFileSync(path.resolve(__dirname, '../README.md'), 'utf8');
  const start = readme.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`README.md has no "${HEADING}" section`);
  const rest = readme.slice(start + HEADING.length + 2);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  return blocks.flatMap((b) => b.replace(/\\\n\s*/g, ' ').split('\n')).map((l) => l.trim()).filter(Boolean);
}

const lines = sectionLines();
const curls = lines.filter((l) => l.startsWith('curl '));

interface Example {
  line: string;
  operation: string;
  method: 'GET' | 'POST' | 'SOAP 1.1' | 'SOAP 1.2';
}

const examples: Example[] = curls.map((line) => {
  const soap = /Content-Type: text\/xml/.test(line) ? 'SOAP 1.1' : /Content-Type: application\/soap\+xml/.test(line) ? 'SOAP 1.2' : undefined;
  // A SOAP example names its operation in the Body, an HTTP one in the path.
  if (soap) return { line, operation: /<soap:Body><(\w+)/.exec(line)?.[1] ?? '', method: soap };
  const operation = /\.asmx\/(\w+)/.exec(line)?.[1] ?? '';
  const data = /(^|\s)(-d|--data(-\w+)?)\s/.test(line);
  const get = /(^|\s)(-G|--get)(\s|$)/.test(line);
  return { line, operation, method: data && !get ? 'POST' : 'GET' };
});

let svc: TestService;

beforeAll(async () => {
  svc = await startService();
});

afterAll(async () => {
  await svc?.close();
});

function run(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, URL: svc.url, DEVID: String(svc.key.devId), DEVKEY: svc.key.devKey };
  return new Promise((resolve) => {
    execFile('bash', ['-c', line], { env, timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

test('the section sets URL, DEVID and DEVKEY first, and every curl line uses them', () => {
  const assigned = lines.filter((l) => /^[A-Z]+=/.test(l)).map((l) => l.split('=')[0]);
  expect(assigned).toEqual(VARIABLES);
  expect(lines.findIndex((l) => l.startsWith('curl '))).toBeGreaterThan(lines.findIndex((l) => l.startsWith('DEVKEY=')));
  for (const line of curls) for (const v of VARIABLES) expect(line).toContain(`$${v}`);
});

test('every operation has a GET and a POST example', () => {
  const covered = new Set(examples.map((e) => `${e.method} ${e.operation}`));
  const wanted = OPERATIONS.flatMap((op) => [`GET ${op.name}`, `POST ${op.name}`]);
  expect(wanted.filter((w) => !covered.has(w))).toEqual([]);
  expect(examples.filter((e) => !OPERATIONS.some((op) => op.name === e.operation))).toEqual([]);
});

test('there is a SOAP 1.1 and a SOAP 1.2 example', () => {
  expect(examples.filter((e) => e.method.startsWith('SOAP')).map((e) => e.method)).toEqual(['SOAP 1.1', 'SOAP 1.2']);
});

test.each(examples.map((e) => [e.line, e] as const))('%s', async (_line, example) => {
  const op = OPERATIONS.find((o) => o.name === example.operation)!;
  const res = await run(example.line);
  expect({ code: res.code, stderr: res.code ? res.stderr : '' }).toEqual({ code: 0, stderr: '' });
  expect(res.stdout.startsWith('<?xml version="1.0" encoding="utf-8"?>')).toBe(true);
  let root = parseXml(res.stdout).root;
  if (example.method.startsWith('SOAP')) {
    const envNs = example.method === 'SOAP 1.1' ? SOAP11_NS : SOAP12_NS;
    expect([root.local, root.uri]).toEqual(['Envelope', envNs]);
    root = child(child(child(root, 'Body', envNs), `${op.name}Response`, 'SVAPI'), `${op.name}Result`, 'SVAPI');
  } else {
    expect([root.local, root.uri]).toEqual([op.list ? `ArrayOf${op.record}` : op.record, 'SVAPI']);
  }
  // The examples ask for data the sample dataset has.
  expect(root.children.length).toBeGreaterThan(0);
});
