// Without Debian's xmllint the schema checks run on xmllint-wasm (test/support/xmllint.ts). That
// fallback must refuse what xmllint refuses, or the suite would pass on machines with nothing checked.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const CLI = path.join(__dirname, 'support/xmllint-wasm-cli.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-xmllint-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};
const schema = write('s.xsd', `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t" xmlns="urn:t" elementFormDefault="qualified">
  <xs:element name="Monster"><xs:complexType><xs:sequence>
    <xs:element name="MonsterName" type="xs:string"/><xs:element name="MonsterID" type="xs:int"/>
  </xs:sequence></xs:complexType></xs:element></xs:schema>`);
const check = (xml: string) => spawnSync(process.execPath, [CLI, '--schema', schema, write(`d${Math.random()}.xml`, xml)], { encoding: 'utf8' });

test('a valid document passes', () => {
  expect(check('<Monster xmlns="urn:t"><MonsterName>Atrox</MonsterName><MonsterID>5</MonsterID></Monster>').status).toBe(0);
});

test.each([
  ['a wrong type', '<Monster xmlns="urn:t"><MonsterName>Atrox</MonsterName><MonsterID>five</MonsterID></Monster>', /not a valid value/],
  ['elements out of order', '<Monster xmlns="urn:t"><MonsterID>5</MonsterID><MonsterName>Atrox</MonsterName></Monster>', /not expected/],
  ['another namespace', '<Monster><MonsterName>Atrox</MonsterName><MonsterID>5</MonsterID></Monster>', /No matching global declaration/],
])('%s fails, with the reason', (_how, xml, reason) => {
  const r = check(xml);
  expect(r.status).toBe(3);
  expect(r.stderr).toMatch(reason);
});
