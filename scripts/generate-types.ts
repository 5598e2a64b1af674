// Generates src/generated/records.ts from the XSD types in the four WSDLs.
//
//   npm run generate:types                           (re)write the file
//   npx tsx scripts/generate-types.ts --check        exit 1 if the file is stale
//
// One interface per named complexType (fields in schema order) plus, per record,
// a `<Name>Fields` constant describing the fields' order and XSD types for the
// serializer, an `Operations` table (parameters, result shape, endpoint path)
// read from the SOAP bindings, and the operation signatures as CXF or wsimport
// generate a service interface: `OperationParams`, `OperationResults`, one
// `<Service>Service` interface per wsdl:service, and the `ENDPOINTS` list. The
// catalog (src/operations/catalog.ts) must satisfy them, so a WSDL change the
// code does not follow fails type-checking. Output is deterministic: files in
// the order of WSDL_FILES, declarations in document order.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { WSDL_FILES, findMessage, findPortType, findSchemaElement, loadServiceWsdls, type WsdlModel } from './wsdl/model';
import { NS, attr, canonical, elements, firstElement, resolveQName, type XElement } from './wsdl/xml-tree';

export const OUTPUT = path.resolve(__dirname, '..', 'src', 'generated', 'records.ts');

export type XsdSimpleType = 'int' | 'decimal' | 'boolean' | 'dateTime' | 'string';
const SIMPLE: Record<XsdSimpleType, string> = { int: 'number', decimal: 'string', boolean: 'boolean', dateTime: 'string', string: 'string' };

export interface FieldInfo {
  name: string;
  kind: 'simple' | 'record' | 'list';
  /** XSD simple type, or the record (item record for lists). */
  type: string;
  /** Item element name, for lists. */
  item?: string;
  optional: boolean;
  nillable: boolean;
}

export interface RecordInfo {
  name: string;
  file: string;
  fields: FieldInfo[];
}

export interface ParamInfo {
  name: string;
  type: XsdSimpleType;
  optional: boolean;
}

export interface OperationInfo {
  name: string;
  service: string;
  wsdl: string;
  path: string;
  /** All parameters, the DevID and DevKey credentials first. */
  params: ParamInfo[];
  result: { element: string; record: string; list: boolean; httpRoot: string; item?: string };
}

/** Every operation takes these first; the service checks them before any operation runs. */
const CREDENTIALS: readonly ParamInfo[] = [
  { name: 'DevID', type: 'int', optional: false },
  { name: 'DevKey', type: 'string', optional: true },
];

class GenerateError extends Error {}

function fail(m: WsdlModel, el: XElement | undefined, msg: string): never {
  throw new GenerateError(`${path.relative(process.cwd(), m.file)}${el ? `:${el.line}` : ''}: ${msg}`);
}

function sequenceOf(m: WsdlModel, complexType: XElement): XElement[] {
  const kids = elements(complexType, NS.xs).filter((e) => e.local !== 'annotation');
  if (kids.length === 0) return [];
  if (kids.length !== 1 || kids[0].local !== 'sequence') fail(m, complexType, 'only complexTypes with a plain xs:sequence are supported');
  const items = elements(kids[0], NS.xs).filter((e) => e.local !== 'annotation');
  for (const e of items) if (e.local !== 'element') fail(m, e, `xs:${e.local} in a sequence is not supported`);
  return items;
}

function complexTypeNamed(m: WsdlModel, name: string): XElement | undefined {
  for (const s of m.schemas) if (s.targetNamespace === m.tns && s.complexTypes.has(name)) return s.complexTypes.get(name);
  return undefined;
}

/** The item element of an ArrayOfX wrapper type, or undefined if `ct` is not one. */
function listItem(m: WsdlModel, ct: XElement): XElement | undefined {
  const name = attr(ct, 'name') ?? '';
  if (!name.startsWith('ArrayOf')) return undefined;
  const seq = sequenceOf(m, ct);
  if (seq.length !== 1 || attr(seq[0], 'maxOccurs') !== 'unbounded') fail(m, ct, `${name} must be a sequence of one element with maxOccurs="unbounded"`);
  return seq[0];
}

function fieldInfo(m: WsdlModel, el: XElement): FieldInfo {
  const name = attr(el, 'name');
  const typeRaw = attr(el, 'type');
  if (!name || !typeRaw) fail(m, el, 'fields need name= and type= (no refs or anonymous types)');
  const q = resolveQName(el, typeRaw);
  const optional = attr(el, 'minOccurs') === '0';
  const nillable = attr(el, 'nillable') === 'true';
  if (q?.uri === NS.xs) {
    if (!(q.local in SIMPLE)) fail(m, el, `XSD type ${q.local} is not supported (int, decimal, boolean, dateTime, string)`);
    return { name, kind: 'simple', type: q.local, optional, nillable };
  }
  const ct = q?.uri === m.tns ? complexTypeNamed(m, q.local) : undefined;
  if (!ct) fail(m, el, `type ${typeRaw} is not a complexType of the WSDL`);
  const item = listItem(m, ct);
  if (item) {
    const itemType = resolveQName(item, attr(item, 'type') ?? '');
    if (itemType?.uri !== m.tns || !complexTypeNamed(m, itemType.local)) fail(m, item, 'list items must be records');
    return { name, kind: 'list', type: itemType.local, item: attr(item, 'name'), optional, nillable };
  }
  return { name, kind: 'record', type: q!.local, optional, nillable };
}

/** Every named complexType that is not an ArrayOf wrapper, first declaration wins (SHARED-TYPES keeps them equal). */
export function collectRecords(models: WsdlModel[]): RecordInfo[] {
  const out: RecordInfo[] = [];
  const seen = new Map<string, string>();
  for (const m of models) {
    for (const s of m.schemas) {
      for (const ct of elements(s.el, NS.xs, 'complexType')) {
        const name = attr(ct, 'name');
        if (!name || listItem(m, ct)) continue;
        const text = canonical(ct);
        if (seen.has(name)) {
          if (seen.get(name) !== text) fail(m, ct, `complexType ${name} differs from its first declaration; run scripts/check-wsdl.ts`);
          continue;
        }
        seen.set(name, text);
        out.push({ name, file: path.basename(m.file), fields: sequenceOf(m, ct).map((e) => fieldInfo(m, e)) });
      }
    }
  }
  return out;
}

/** The operations of each WSDL's SOAP 1.1 binding, with the HTTP root element of their results. */
export function collectOperations(models: WsdlModel[]): OperationInfo[] {
  const out: OperationInfo[] = [];
  for (const m of models) {
    const service = m.services[0];
    const soapPort = service?.ports.find((p) => p.address?.uri === NS.soap);
    const soapBinding = m.bindings.find((b) => b.kind === 'soap11');
    const getBinding = m.bindings.find((b) => b.kind === 'http' && b.ext && attr(b.ext, 'verb') === 'GET');
    if (!service || !soapPort?.address || !soapBinding || !getBinding) fail(m, m.root, 'needs a service with a SOAP 1.1 port and an HTTP GET binding');
    const location = attr(soapPort.address, 'location') ?? '';
    const urlPath = new URL(location).pathname;
    const pt = findPortType(m, soapBinding.type?.q);
    const getPt = findPortType(m, getBinding.type?.q);
    for (const bop of soapBinding.operations) {
      const op = pt?.operations.find((o) => o.name === bop.name);
      const inEl = findSchemaElement(m, findMessage(m, op?.input?.message?.q)?.parts[0]?.element?.q);
      const outEl = findSchemaElement(m, findMessage(m, op?.output?.message?.q)?.parts[0]?.element?.q);
      if (!inEl || !outEl) fail(m, bop.el, `operation ${bop.name}: input/output elements do not resolve`);
      const anon = (e: XElement): XElement => firstElement(e, NS.xs, 'complexType') ?? fail(m, e, 'wrapper elements need an anonymous complexType');
      const params = sequenceOf(m, anon(inEl)).map((e) => {
        const f = fieldInfo(m, e);
        if (f.kind !== 'simple') fail(m, e, 'parameters must have simple types');
        return { name: f.name, type: f.type as XsdSimpleType, optional: f.optional };
      });
      const credentials = params.slice(0, CREDENTIALS.length);
      if (JSON.stringify(credentials) !== JSON.stringify(CREDENTIALS)) {
        fail(m, inEl, `operation ${bop.name}: the parameters must begin with DevID (xs:int) and DevKey (xs:string, minOccurs="0")`);
      }
      for (const p of params.slice(CREDENTIALS.length)) {
        // The bindings decode int and string texts; an absent optional parameter decodes to ''.
        if (p.type !== 'int' && p.type !== 'string') fail(m, inEl, `operation ${bop.name}: parameter ${p.name} must be xs:int or xs:string`);
        if (p.type === 'int' && p.optional) fail(m, inEl, `operation ${bop.name}: int parameter ${p.name} cannot be optional (minOccurs="0")`);
      }
      const results = sequenceOf(m, anon(outEl));
      if (results.length !== 1) fail(m, outEl, `${bop.name}Response must hold exactly one element`);
      const r = fieldInfo(m, results[0]);
      if (r.kind === 'simple') fail(m, results[0], 'results must be records or lists of records');
      const getOp = getPt?.operations.find((o) => o.name === bop.name);
      const httpRoot = findMessage(m, getOp?.output?.message?.q)?.parts[0]?.element?.q?.local;
      if (!httpRoot) fail(m, bop.el, `operation ${bop.name}: no HTTP GET output element`);
      out.push({
        name: bop.name,
        service: service.name,
        wsdl: path.basename(m.file),
        path: urlPath,
        params,
        result: { element: r.name, record: r.type, list: r.kind === 'list', httpRoot, ...(r.item ? { item: r.item } : {}) },
      });
    }
  }
  return out;
}

const q = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function renderField(f: FieldInfo): string {
  const parts = [`name: ${q(f.name)}`, `kind: ${q(f.kind)}`, `type: ${q(f.type)}`];
  if (f.item !== undefined) parts.push(`item: ${q(f.item)}`);
  if (f.optional) parts.push('optional: true');
  if (f.nillable) parts.push('nillable: true');
  return `  { ${parts.join(', ')} },`;
}

function tsType(f: FieldInfo): string {
  const base = f.kind === 'simple' ? SIMPLE[f.type as XsdSimpleType] : f.kind === 'list' ? `${f.type}[]` : f.type;
  return f.nillable ? `${base} | null` : base;
}

function xsdNote(f: FieldInfo): string {
  const occurs = [f.optional ? 'minOccurs=0' : '', f.nillable ? 'nillable' : ''].filter(Boolean).join(', ');
  const t = f.kind === 'simple' ? `xs:${f.type}` : f.kind === 'list' ? `ArrayOf${f.type} (<${f.item}> items)` : f.type;
  return occurs ? `${t}, ${occurs}` : t;
}

/** An operation's own parameters as a TypeScript object type. */
function paramsType(o: OperationInfo): string {
  const own = o.params.slice(CREDENTIALS.length);
  return own.length === 0 ? 'Record<string, never>' : `{ ${own.map((p) => `${p.name}: ${SIMPLE[p.type]}`).join('; ')} }`;
}

const resultType = (o: OperationInfo): string => (o.result.list ? `${o.result.record}[]` : o.result.record);

/** The endpoints in WSDL_FILES order: one wsdl:service each. */
function endpointsOf(operations: OperationInfo[]): { name: string; path: string; service: string; wsdlFile: string; operations: OperationInfo[] }[] {
  const out = new Map<string, { name: string; path: string; service: string; wsdlFile: string; operations: OperationInfo[] }>();
  for (const o of operations) {
    const e = out.get(o.wsdl) ?? { name: o.wsdl.replace(/\.wsdl$/, ''), path: o.path, service: o.service, wsdlFile: o.wsdl, operations: [] };
    e.operations.push(o);
    out.set(o.wsdl, e);
  }
  return [...out.values()];
}

function renderSignatures(operations: OperationInfo[]): string[] {
  const L: string[] = [];
  const endpoints = endpointsOf(operations);
  L.push('');
  L.push('/**');
  L.push(' * Each operation\'s own parameters, after the DevID and DevKey credentials (which the service');
  L.push(' * checks before any operation runs). An absent optional string arrives as \'\'.');
  L.push(' */');
  L.push('export interface OperationParams {');
  for (const o of operations) L.push(`  ${o.name}: ${paramsType(o)};`);
  L.push('}');
  L.push('');
  L.push('/** Each operation\'s result: a record, or the records of an ArrayOf<Record>. */');
  L.push('export interface OperationResults {');
  for (const o of operations) L.push(`  ${o.name}: ${resultType(o)};`);
  L.push('}');
  for (const e of endpoints) {
    L.push('');
    L.push(`/** wsdl:service ${e.service} (${e.wsdlFile}, ${e.path}), as wsimport generates its port interface. */`);
    L.push(`export interface ${e.service}Service {`);
    for (const o of e.operations) L.push(`  ${o.name}(params: ${paramsType(o)}): Promise<${resultType(o)}>;`);
    L.push('}');
  }
  L.push('');
  L.push('/** wsdl:service name -> its interface. */');
  L.push('export interface Services {');
  for (const e of endpoints) L.push(`  ${e.service}: ${e.service}Service;`);
  L.push('}');
  L.push('');
  L.push('/** The endpoints: `name` is the WSDL file\'s, `path` has the interface\'s letter case. */');
  L.push('export const ENDPOINTS = [');
  for (const e of endpoints) {
    const ops = e.operations.map((o) => q(o.name)).join(', ');
    L.push(`  { name: ${q(e.name)}, path: ${q(e.path)}, service: ${q(e.service)}, wsdlFile: ${q(e.wsdlFile)}, operations: [${ops}] },`);
  }
  L.push('] as const;');
  L.push('');
  L.push('export type Endpoint = (typeof ENDPOINTS)[number];');
  L.push("export type EndpointName = Endpoint['name'];");
  L.push("export type ServiceName = Endpoint['service'];");
  return L;
}

export function render(models: WsdlModel[]): string {
  const records = collectRecords(models);
  const operations = collectOperations(models);
  const L: string[] = [];
  L.push('// GENERATED FILE: DO NOT EDIT.');
  L.push(`// Generated by \`npm run generate:types\` (scripts/generate-types.ts) from the XSD types in`);
  L.push(`// ${WSDL_FILES.map((f) => `wsdl/${f}`).join(', ')}.`);
  L.push('// Change the WSDLs, then run `npm run generate:types`. `npx tsx scripts/generate-types.ts --check`');
  L.push('// (run by test/wsdl.test.ts) fails while this file is out of date.');
  L.push('//');
  L.push('// XSD -> TypeScript: int -> number, decimal -> string (the exact decimal text, never a float),');
  L.push('// boolean -> boolean, dateTime -> string (formatted XSD dateTime), string -> string;');
  L.push('// minOccurs="0" -> optional property (element omitted when undefined);');
  L.push('// nillable="true" -> `| null` (element written with xsi:nil="true"); ArrayOfX -> X[].');
  L.push('');
  L.push("export type XsdType = 'int' | 'decimal' | 'boolean' | 'dateTime' | 'string';");
  L.push('');
  L.push('/** A field of a record, in schema (= wire) order. */');
  L.push('export type FieldMeta =');
  L.push("  | { readonly name: string; readonly kind: 'simple'; readonly type: XsdType; readonly optional?: true; readonly nillable?: true }");
  L.push("  | { readonly name: string; readonly kind: 'record'; readonly type: RecordName; readonly optional?: true; readonly nillable?: true }");
  L.push('  | {');
  L.push('      readonly name: string;');
  L.push("      readonly kind: 'list';");
  L.push('      /** Record type of the items. */');
  L.push('      readonly type: RecordName;');
  L.push('      /** Element name of each item inside the list element. */');
  L.push('      readonly item: string;');
  L.push('      readonly optional?: true;');
  L.push('      readonly nillable?: true;');
  L.push('    };');
  for (const r of records) {
    L.push('');
    L.push(`/** complexType ${r.name} (${r.file}). */`);
    L.push(`export interface ${r.name} {`);
    for (const f of r.fields) L.push(`  ${f.name}${f.optional ? '?' : ''}: ${tsType(f)}; // ${xsdNote(f)}`);
    L.push('}');
    L.push('');
    L.push(`export const ${r.name}Fields = [`);
    for (const f of r.fields) L.push(renderField(f));
    L.push('] as const satisfies readonly FieldMeta[];');
  }
  L.push('');
  L.push(`export type RecordName = ${records.map((r) => q(r.name)).join(' | ')};`);
  L.push('');
  L.push('/** Record name -> its TypeScript type. */');
  L.push('export interface RecordTypes {');
  for (const r of records) L.push(`  ${r.name}: ${r.name};`);
  L.push('}');
  L.push('');
  L.push('/** Record name -> its fields in schema order. */');
  L.push('export const RecordFields = {');
  for (const r of records) L.push(`  ${r.name}: ${r.name}Fields,`);
  L.push('} as const satisfies { readonly [K in RecordName]: readonly FieldMeta[] };');
  L.push('');
  L.push('export interface OperationMeta {');
  L.push('  readonly name: string;');
  L.push('  /** wsdl:service name. */');
  L.push('  readonly service: string;');
  L.push('  readonly wsdl: string;');
  L.push('  /** Endpoint path with the interface\'s letter case. */');
  L.push('  readonly path: string;');
  L.push('  /**');
  L.push('   * Parameters in order (SOAP child elements; HTTP names). `optional` is the');
  L.push('   * schema\'s minOccurs="0"; DevKey is optional there but still a required credential.');
  L.push('   */');
  L.push('  readonly params: readonly { readonly name: string; readonly type: XsdType; readonly optional?: true }[];');
  L.push('  readonly result: {');
  L.push('    /** <Operation>Result element inside <Operation>Response. */');
  L.push('    readonly element: string;');
  L.push('    readonly record: RecordName;');
  L.push('    readonly list: boolean;');
  L.push('    /** Root element of the HTTP GET/POST response. */');
  L.push('    readonly httpRoot: string;');
  L.push('    /** Element name of each record in a list. */');
  L.push('    readonly item?: string;');
  L.push('  };');
  L.push('}');
  L.push('');
  L.push('/** The operations, from the SOAP bindings of the WSDLs. */');
  L.push('export const Operations = [');
  for (const o of operations) {
    L.push('  {');
    L.push(`    name: ${q(o.name)},`);
    L.push(`    service: ${q(o.service)},`);
    L.push(`    wsdl: ${q(o.wsdl)},`);
    L.push(`    path: ${q(o.path)},`);
    L.push('    params: [');
    for (const p of o.params) L.push(`      { name: ${q(p.name)}, type: ${q(p.type)}${p.optional ? ', optional: true' : ''} },`);
    L.push('    ],');
    const r = o.result;
    L.push(
      `    result: { element: ${q(r.element)}, record: ${q(r.record)}, list: ${r.list}, httpRoot: ${q(r.httpRoot)}${r.item ? `, item: ${q(r.item)}` : ''} },`,
    );
    L.push('  },');
  }
  L.push('] as const satisfies readonly OperationMeta[];');
  L.push('');
  L.push("export type OperationName = (typeof Operations)[number]['name'];");
  L.push(...renderSignatures(operations));
  L.push('');
  return L.join('\n');
}

export function generate(): string {
  return render(loadServiceWsdls());
}

export function main(argv: string[]): number {
  let text: string;
  try {
    text = generate();
  } catch (e) {
    if (e instanceof GenerateError) {
      console.error(`generate-types: ${e.message}`);
      return 1;
    }
    throw e;
  }
  const rel = path.relative(process.cwd(), OUTPUT);
  if (argv.includes('--check')) {
    const current = fs.existsSync(OUTPUT) ? fs.readFileSync(OUTPUT, 'utf8') : null;
    if (current === text) {
      console.log(`generate-types: ${rel} is up to date`);
      return 0;
    }
    if (current === null) console.error(`generate-types: ${rel} does not exist; run \`npm run generate:types\``);
    else {
      const a = current.split('\n');
      const b = text.split('\n');
      let i = 0;
      while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
      console.error(`generate-types: ${rel} differs from what the WSDLs give (first at line ${i + 1}); run \`npm run generate:types\``);
      console.error(`  on disk:  ${a[i] ?? '<end of file>'}`);
      console.error(`  expected: ${b[i] ?? '<end of file>'}`);
    }
    return 1;
  }
  fs.mkdirSync(path.dirname(OUTPUT), { recursive: true });
  fs.writeFileSync(OUTPUT, text);
  console.log(`generate-types: wrote ${rel}`);
  return 0;
}

if (require.main === module || path.resolve(process.argv[1] ?? '') === __filename) {
  process.exitCode = main(process.argv.slice(2));
}
