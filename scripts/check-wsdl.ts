// Checks the service's WSDL files.
//
//   npx tsx scripts/check-wsdl.ts            all four WSDLs, all checks, and the rules on the
//                                            form each is served in at <path>?wsdl (no faults)
//   npx tsx scripts/check-wsdl.ts --rules    list the rules
//   npx tsx scripts/check-wsdl.ts --no-xmllint [files...]
//
// (a) Schema validation with xmllint (Debian package libxml2-utils): each WSDL
//     against the WSDL 1.1 schema, the SOAP 1.1 / SOAP 1.2 / HTTP / MIME binding
//     schemas and, for the inline xs:schema, the XML Schema schema for schemas
//     (all vendored in wsdl/w3c/). Then the inline schema is extracted, compiled
//     by xmllint and the sample documents in wsdl/samples/<name>/ are validated
//     against it.
// (b) The rules in RULES below: references resolve, the WS-I Basic Profile 1.1
//     rules that a WSDL can break, and this service's own conventions.
//
// Exits 1 with one line per problem when anything is wrong.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  PLACEHOLDER_NAMESPACE,
  WSDL_DIR,
  WSDL_FILES,
  findBinding,
  findMessage,
  findPortType,
  findSchemaElement,
  findSchemaType,
  readWsdl,
  type BindingModel,
  type MessageModel,
  type PortTypeOperationModel,
  type WsdlModel,
} from './wsdl/model';
import {
  NS,
  XmlParseError,
  attr,
  canonical,
  descendants,
  elements,
  firstElement,
  qnameKey,
  resolveQName,
  serialize,
  type XElement,
} from './wsdl/xml-tree';
import { soapActionFor } from '../src/xml/soap-action';
import { ENDPOINTS } from '../src/wsdl/endpoints';
import { WsdlDocuments, type WsdlForm } from '../src/wsdl/documents';

export interface Problem {
  file: string;
  line?: number;
  rule: string;
  message: string;
}

/** Every rule the checker applies, by id. BP = WS-I Basic Profile 1.1. */
export const RULES: Record<string, string> = {
  XML: 'The WSDL is well-formed XML without DOCTYPE, declared and encoded as UTF-8 (BP R4003)',
  'WSDL-ROOT': 'The root is wsdl:definitions with a targetNamespace',
  'WSDL-UNIQUE': 'Names are unique: messages, portTypes, bindings, services, parts of a message, ports of a service, operations of a portType/binding (BP R2304), schema components of each kind',
  'REF-SCHEMA': 'Every type/base/itemType/ref QName inside the inline schema resolves to a declaration in it or an XSD built-in type',
  'REF-PART': 'Every wsdl:part has exactly one of element= and type=, and it resolves to a schema element / type',
  'REF-MESSAGE': 'Every portType operation has input and output, and its input/output/fault messages resolve; faults are named',
  'REF-PORTTYPE': 'Every binding type= resolves to a portType',
  'REF-BINDING': 'Every service port binding= resolves to a binding, and the port has an address with a location',
  'BINDING-KIND': 'Every binding has exactly one soap:binding, soap12:binding or http:binding',
  'BP-R2718': 'A binding has the same operations as its portType, each with the same input/output; a SOAP 1.1 binding binds the same named faults',
  'SOAP12-NO-FAULT': 'The SOAP 1.2 binding binds no wsdl:fault: Axis 1.4 refuses soap12:fault; the portType and SOAP 1.1 binding keep the typed fault',
  'BP-R2105': 'Every xs:schema in wsdl:types has a targetNamespace',
  'BP-R2702': 'soap:binding/soap12:binding has transport="http://schemas.xmlsoap.org/soap/http" (BP R2701, R2702)',
  'BP-R2705': 'A SOAP binding uses one style for all its operations; this service uses document style throughout',
  'BP-R2706': 'soap:body, soap:fault, soap:header and soap:headerfault say use="literal" (never "encoded", never left to the default)',
  'NO-SOAP-ENCODING': 'No SOAP encoding anywhere: no encodingStyle attribute, no soapenc types, no wsdl:arrayType (BP R1005-R1007, R2110-R2112)',
  'BP-R2716': 'Document-literal soap:body/soap:header/soap:fault have no namespace attribute (BP R2716, R2726)',
  'BP-R2201': 'A document-literal soap:body binds at most one part, by parts= or because the message has at most one (BP R2201, R2210)',
  'BP-R2204': 'Every part a document-literal soap:body binds is declared with element=, not type=',
  'BP-R2205': 'Every fault message has exactly one part, declared with element=; every binding fault has a soap:fault whose name matches the wsdl:fault name (BP R2205, R2721, R2754)',
  'BP-R2710': 'Operations of a SOAP binding have distinct wire signatures: distinct soap:Body child elements',
  'SOAP-ACTION': 'Every SOAP operation has soap:operation soapAction="<targetNamespace>/<Operation>" (CONTRACT §1: no second / when the namespace ends in one), distinct within the binding',
  'HTTP-BINDING': 'HTTP bindings: verb GET or POST; http:operation location="/<Operation>"; GET input http:urlEncoded, POST input mime:content application/x-www-form-urlencoded; input parts by type=; output mime:mimeXml naming the single element= part of the output message',
  'SVAPI-NAMESPACE': 'The targetNamespace is the placeholder SVAPI, and every occurrence of SVAPI is an attribute value equal to SVAPI or a soapAction starting with SVAPI/ (the server sets the configured namespace in the former and recomputes the latter)',
  'SVAPI-PORTS': 'One service <S> with ports <S>Soap (SOAP 1.1), <S>Soap12 (SOAP 1.2), <S>HttpGet and <S>HttpPost, all at the same absolute http address',
  'SVAPI-FAULT': 'The file (served at <path>?wsdl=faults): every SOAP portType operation declares wsdl:fault name="ServiceError" with a message whose part is element tns:ServiceError (CONTRACT §7, issue 19)',
  'LEGACY-NO-FAULT': 'The form served at <path>?wsdl declares, as ASMX published it, no wsdl:fault, no fault message and no ServiceError element or type (CONTRACT §7, issue 19)',
  'CONTRACT-OCCURS': 'Fields of sequences: int/decimal/boolean/dateTime and the nillable members minOccurs="1" maxOccurs="1" (as ASMX\'s XmlSerializer publishes them); other strings and complex minOccurs="0" maxOccurs="1"; ArrayOf items minOccurs="0" maxOccurs="unbounded" (ServiceError excepted)',
  'CONTRACT-NILLABLE': 'nillable="true" only where CONTRACT §4 says: Description-typed fields, Landarea.Planet, Planet.Description, ArrayOf items and top-level elements',
  'SHARED-TYPES': 'A schema component or wsdl:message declared in several WSDLs is identical in all of them',
  'XSD-VALID': 'xmllint: the WSDL validates against the WSDL 1.1, binding and XML Schema schemas',
  'XSD-COMPILE': 'xmllint: the extracted inline schema compiles and the sample documents in wsdl/samples/<name>/ validate against it',
};

const SOAP_HTTP_TRANSPORT = 'http://schemas.xmlsoap.org/soap/http';
const VALUE_TYPES = new Set(['int', 'decimal', 'boolean', 'dateTime']);

type Report = (rule: string, el: XElement | undefined, message: string) => void;

// --- (b) rules -------------------------------------------------------------------

function checkXml(m: WsdlModel, report: Report): void {
  const enc = m.doc.xmlDecl?.encoding;
  if (!enc || enc.toLowerCase() !== 'utf-8') report('XML', m.root, `the XML declaration must say encoding="utf-8" (found ${enc ?? 'none'})`);
  if (m.doc.hasDoctype) report('XML', m.root, 'DOCTYPE is not allowed');
  if (m.text.charCodeAt(0) === 0xfeff) report('XML', m.root, 'no byte order mark, please');
}

function checkRoot(m: WsdlModel, report: Report): void {
  if (m.root.uri !== NS.wsdl || m.root.local !== 'definitions') report('WSDL-ROOT', m.root, `root element is {${m.root.uri}}${m.root.local}, not wsdl:definitions`);
  if (!m.tns) report('WSDL-ROOT', m.root, 'wsdl:definitions has no targetNamespace');
}

function checkUnique(m: WsdlModel, report: Report): void {
  const unique = (what: string, items: Array<{ name: string; el: XElement }>): void => {
    const seen = new Set<string>();
    for (const it of items) {
      if (!it.name) report('WSDL-UNIQUE', it.el, `${what} without a name`);
      else if (seen.has(it.name)) report('WSDL-UNIQUE', it.el, `duplicate ${what} name "${it.name}"`);
      seen.add(it.name);
    }
  };
  unique('message', m.messages);
  unique('portType', m.portTypes);
  unique('binding', m.bindings);
  unique('service', m.services);
  for (const msg of m.messages) unique(`part (message ${msg.name})`, msg.parts);
  for (const pt of m.portTypes) unique(`operation (portType ${pt.name})`, pt.operations);
  for (const b of m.bindings) unique(`operation (binding ${b.name})`, b.operations);
  for (const s of m.services) unique(`port (service ${s.name})`, s.ports);
  for (const s of m.schemas) {
    for (const kind of ['element', 'complexType', 'simpleType']) {
      unique(
        `schema ${kind}`,
        elements(s.el, NS.xs, kind).map((el) => ({ name: attr(el, 'name') ?? '', el })),
      );
    }
  }
}

function checkSchemas(m: WsdlModel, report: Report): void {
  if (m.schemas.length === 0) report('REF-SCHEMA', m.root, 'no xs:schema in wsdl:types');
  for (const s of m.schemas) {
    if (!s.targetNamespace) report('BP-R2105', s.el, 'xs:schema has no targetNamespace');
    for (const el of descendants(s.el)) {
      if (el.uri !== NS.xs) continue;
      for (const a of ['type', 'base', 'itemType']) {
        const raw = attr(el, a);
        if (raw === undefined) continue;
        const q = resolveQName(el, raw);
        if (!q) report('REF-SCHEMA', el, `${a}="${raw}": prefix not declared`);
        else if (!findSchemaType(m, q)) report('REF-SCHEMA', el, `${a}="${raw}" does not resolve to a type`);
      }
      const r = attr(el, 'ref');
      if (r !== undefined && el.local === 'element') {
        const q = resolveQName(el, r);
        if (!findSchemaElement(m, q)) report('REF-SCHEMA', el, `ref="${r}" does not resolve to a top-level element`);
      }
    }
  }
}

function checkMessages(m: WsdlModel, report: Report): void {
  for (const msg of m.messages) {
    for (const p of msg.parts) {
      if (!!p.element === !!p.type) {
        report('REF-PART', p.el, `part "${p.name}" of message ${msg.name} must have exactly one of element= and type=`);
        continue;
      }
      if (p.element && !findSchemaElement(m, p.element.q)) report('REF-PART', p.el, `part "${p.name}" element="${p.element.raw}" does not resolve to a top-level schema element`);
      if (p.type && !findSchemaType(m, p.type.q)) report('REF-PART', p.el, `part "${p.name}" type="${p.type.raw}" does not resolve to a type`);
    }
  }
}

function checkPortTypes(m: WsdlModel, report: Report): void {
  for (const pt of m.portTypes) {
    for (const op of pt.operations) {
      if (!op.input || !op.output) report('REF-MESSAGE', op.el, `operation ${pt.name}.${op.name} must be request-response (input and output)`);
      for (const [what, p] of [
        ['input', op.input],
        ['output', op.output],
        ...op.faults.map((f) => ['fault', f] as const),
      ] as const) {
        if (!p) continue;
        if (!p.message) report('REF-MESSAGE', p.el, `${what} of ${pt.name}.${op.name} has no message=`);
        else if (!findMessage(m, p.message.q)) report('REF-MESSAGE', p.el, `${what} of ${pt.name}.${op.name}: message="${p.message.raw}" does not resolve`);
        if (what === 'fault' && !p.name) report('REF-MESSAGE', p.el, `fault of ${pt.name}.${op.name} has no name`);
      }
    }
  }
}

const bodyOf = (e: XElement | undefined, ns: string): XElement | undefined => (e ? firstElement(e, ns, 'body') : undefined);

function checkBindingAgainstPortType(m: WsdlModel, b: BindingModel, report: Report): void {
  if (!b.type) {
    report('REF-PORTTYPE', b.el, `binding ${b.name} has no type=`);
    return;
  }
  const pt = findPortType(m, b.type.q);
  if (!pt) {
    report('REF-PORTTYPE', b.el, `binding ${b.name}: type="${b.type.raw}" does not resolve to a portType`);
    return;
  }
  const ptOps = new Map(pt.operations.map((o) => [o.name, o]));
  const bOps = new Set(b.operations.map((o) => o.name));
  for (const name of ptOps.keys()) if (!bOps.has(name)) report('BP-R2718', b.el, `binding ${b.name} lacks operation ${name} of portType ${pt.name}`);
  for (const op of b.operations) {
    const pop = ptOps.get(op.name);
    if (!pop) {
      report('BP-R2718', op.el, `binding ${b.name} has operation ${op.name} that portType ${pt.name} does not`);
      continue;
    }
    if (!!op.input !== !!pop.input) report('BP-R2718', op.el, `${b.name}.${op.name}: input present in only one of binding and portType`);
    if (!!op.output !== !!pop.output) report('BP-R2718', op.el, `${b.name}.${op.name}: output present in only one of binding and portType`);
    // Axis 1.4's WSDL2Java (with wsdl4j 1.6) does not recognise soap12:fault and refuses the whole
    // WSDL ("Missing <soap:fault> element inFault"). So the SOAP 1.2 binding binds no fault, which
    // WSDL 1.1 allows and WS-I BP 1.1 (SOAP 1.1 only) does not cover: wsimport keeps the portType's
    // fault with a warning, gSOAP collects fault details per service rather than per binding,
    // .NET, zeep and node-soap read the detail whatever the binding says.
    if (b.kind === 'soap12') {
      for (const f of op.faults) report('SOAP12-NO-FAULT', f, `${b.name}.${op.name}: wsdl:fault "${attr(f, 'name') ?? ''}" in the SOAP 1.2 binding`);
      continue;
    }
    const bf = op.faults.map((f) => attr(f, 'name') ?? '').sort();
    const pf = pop.faults.map((f) => f.name ?? '').sort();
    if (bf.join(',') !== pf.join(',')) report('BP-R2718', op.el, `${b.name}.${op.name}: faults [${bf.join(', ')}] differ from the portType's [${pf.join(', ')}]`);
  }
}

function portTypeOp(m: WsdlModel, b: BindingModel, name: string): PortTypeOperationModel | undefined {
  return findPortType(m, b.type?.q)?.operations.find((o) => o.name === name);
}

function checkSoapBinding(m: WsdlModel, b: BindingModel, report: Report): void {
  const ns = b.extNs!;
  const ext = b.ext!;
  const transport = attr(ext, 'transport');
  if (transport === undefined) report('BP-R2702', ext, `binding ${b.name}: soap binding has no transport attribute`);
  else if (transport !== SOAP_HTTP_TRANSPORT) report('BP-R2702', ext, `binding ${b.name}: transport "${transport}" is not ${SOAP_HTTP_TRANSPORT}`);
  const bindingStyle = attr(ext, 'style') ?? 'document';
  if (bindingStyle !== 'document') report('BP-R2705', ext, `binding ${b.name}: style "${bindingStyle}"; this service is document style`);

  const signatures = new Map<string, string>();
  const actions = new Map<string, string>();
  for (const op of b.operations) {
    const soapOp = firstElement(op.el, ns, 'operation');
    const style = (soapOp && attr(soapOp, 'style')) ?? bindingStyle;
    if (style !== bindingStyle) report('BP-R2705', soapOp ?? op.el, `${b.name}.${op.name}: style "${style}" differs from the binding's "${bindingStyle}"`);

    // soapAction
    const expected = soapActionFor(m.tns, op.name);
    const action = soapOp ? attr(soapOp, 'soapAction') : undefined;
    if (!soapOp) report('SOAP-ACTION', op.el, `${b.name}.${op.name} has no soap operation element`);
    else if (action !== expected) report('SOAP-ACTION', soapOp, `${b.name}.${op.name}: soapAction is ${action === undefined ? 'missing' : `"${action}"`}, expected "${expected}"`);
    if (action !== undefined) {
      const other = actions.get(action);
      if (other) report('SOAP-ACTION', soapOp, `${b.name}: soapAction "${action}" used by both ${other} and ${op.name}`);
      actions.set(action, op.name);
    }

    // every SOAP extension element under the operation: use="literal", no namespace=
    for (const e of descendants(op.el)) {
      if (e.uri !== ns || !['body', 'header', 'headerfault', 'fault'].includes(e.local)) continue;
      const use = attr(e, 'use');
      if (use !== 'literal') report('BP-R2706', e, `${b.name}.${op.name}: soap ${e.local} has ${use === undefined ? 'no use attribute' : `use="${use}"`}; must be use="literal"`);
      if (attr(e, 'namespace') !== undefined) report('BP-R2716', e, `${b.name}.${op.name}: document-literal soap ${e.local} must not have a namespace attribute`);
    }

    // bodies: at most one part, declared by element
    const pop = portTypeOp(m, b, op.name);
    for (const [what, bop, pparam] of [
      ['input', op.input, pop?.input],
      ['output', op.output, pop?.output],
    ] as const) {
      const body = bodyOf(bop, ns);
      if (!bop) continue;
      if (!body) {
        report('BP-R2201', bop, `${b.name}.${op.name} ${what} has no soap body`);
        continue;
      }
      const msg = findMessage(m, pparam?.message?.q);
      if (!msg) continue; // REF-MESSAGE reports it
      const partsAttr = attr(body, 'parts');
      const names = partsAttr === undefined ? msg.parts.map((p) => p.name) : partsAttr.split(/\s+/).filter(Boolean);
      if (names.length > 1) report('BP-R2201', body, `${b.name}.${op.name} ${what}: soap body binds ${names.length} parts (${names.join(', ')}); at most one`);
      for (const n of names) {
        const part = msg.parts.find((p) => p.name === n);
        if (!part) report('BP-R2201', body, `${b.name}.${op.name} ${what}: parts="${partsAttr}" names no part of message ${msg.name}`);
        else if (!part.element) report('BP-R2204', part.el, `${b.name}.${op.name} ${what}: part "${n}" of message ${msg.name} is bound by a document-literal body but uses type=, not element=`);
      }
      if (what === 'input') {
        const part = msg.parts.find((p) => p.name === names[0]);
        const key = part?.element?.q ? qnameKey(part.element.q) : '(empty body)';
        const other = signatures.get(key);
        if (other) report('BP-R2710', op.el, `${b.name}: operations ${other} and ${op.name} have the same wire signature (body element ${key})`);
        else signatures.set(key, op.name);
      }
    }

    // faults
    for (const f of op.faults) {
      const fname = attr(f, 'name');
      const sf = firstElement(f, ns, 'fault');
      if (!sf) report('BP-R2205', f, `${b.name}.${op.name}: wsdl:fault "${fname}" has no soap fault element`);
      else if (attr(sf, 'name') !== fname) report('BP-R2205', sf, `${b.name}.${op.name}: soap fault name "${attr(sf, 'name') ?? ''}" does not match wsdl:fault name "${fname}"`);
    }
  }
}

function checkFaultMessages(m: WsdlModel, report: Report): void {
  const checked = new Set<MessageModel>();
  for (const pt of m.portTypes) {
    for (const op of pt.operations) {
      for (const f of op.faults) {
        const msg = findMessage(m, f.message?.q);
        if (!msg || checked.has(msg)) continue;
        checked.add(msg);
        if (msg.parts.length !== 1) report('BP-R2205', msg.el, `fault message ${msg.name} has ${msg.parts.length} parts; exactly one`);
        for (const p of msg.parts) if (!p.element) report('BP-R2205', p.el, `fault message ${msg.name}: part "${p.name}" must use element=`);
      }
    }
  }
}

function checkHttpBinding(m: WsdlModel, b: BindingModel, report: Report): void {
  const verb = attr(b.ext!, 'verb');
  if (verb !== 'GET' && verb !== 'POST') {
    report('HTTP-BINDING', b.ext, `binding ${b.name}: verb "${verb ?? ''}" is not GET or POST`);
    return;
  }
  for (const op of b.operations) {
    const hop = firstElement(op.el, NS.http, 'operation');
    if (!hop || attr(hop, 'location') !== `/${op.name}`) report('HTTP-BINDING', hop ?? op.el, `${b.name}.${op.name}: needs http:operation location="/${op.name}"`);
    const inputOk =
      verb === 'GET'
        ? !!(op.input && firstElement(op.input, NS.http, 'urlEncoded'))
        : !!(op.input && elements(op.input, NS.mime, 'content').some((c) => attr(c, 'type') === 'application/x-www-form-urlencoded'));
    if (!inputOk) report('HTTP-BINDING', op.input ?? op.el, `${b.name}.${op.name}: input must be ${verb === 'GET' ? 'http:urlEncoded' : 'mime:content type="application/x-www-form-urlencoded"'}`);
    const pop = portTypeOp(m, b, op.name);
    const inMsg = findMessage(m, pop?.input?.message?.q);
    for (const p of inMsg?.parts ?? []) if (!p.type) report('HTTP-BINDING', p.el, `${b.name}.${op.name}: HTTP input part "${p.name}" must use type=`);
    const outMsg = findMessage(m, pop?.output?.message?.q);
    const mx = op.output && firstElement(op.output, NS.mime, 'mimeXml');
    if (!mx) report('HTTP-BINDING', op.output ?? op.el, `${b.name}.${op.name}: output must be mime:mimeXml`);
    else if (outMsg) {
      const partName = attr(mx, 'part');
      const part = partName === undefined ? outMsg.parts[0] : outMsg.parts.find((p) => p.name === partName);
      if (outMsg.parts.length !== 1 || !part) report('HTTP-BINDING', mx, `${b.name}.${op.name}: mime:mimeXml must name the single part of message ${outMsg.name}`);
      else if (!part.element) report('HTTP-BINDING', part.el, `${b.name}.${op.name}: HTTP output part "${part.name}" must use element=`);
    }
  }
}

function checkBindings(m: WsdlModel, report: Report): void {
  for (const b of m.bindings) {
    const exts = [NS.soap, NS.soap12, NS.http].flatMap((ns) => elements(b.el, ns, 'binding'));
    if (exts.length !== 1) report('BINDING-KIND', b.el, `binding ${b.name} has ${exts.length} soap/soap12/http binding elements; exactly one`);
    checkBindingAgainstPortType(m, b, report);
    if (b.kind === 'soap11' || b.kind === 'soap12') checkSoapBinding(m, b, report);
    else if (b.kind === 'http') checkHttpBinding(m, b, report);
  }
  checkFaultMessages(m, report);
}

function checkNoSoapEncoding(m: WsdlModel, report: Report): void {
  const encNs = new Set<string>([NS.soapenc11, NS.soapenc12]);
  for (const el of [m.root, ...descendants(m.root)]) {
    for (const a of el.attrs) {
      if (a.local === 'encodingStyle') report('NO-SOAP-ENCODING', el, `${a.name}="${a.value}": no encodingStyle`);
      if (a.local === 'arrayType') report('NO-SOAP-ENCODING', el, `${a.name}: no SOAP-encoded arrays`);
      if (a.uri === NS.soapenc11 || a.uri === NS.soapenc12) report('NO-SOAP-ENCODING', el, `attribute ${a.name} is in the SOAP encoding namespace`);
      if (a.uri === '' && ['type', 'base', 'ref', 'element', 'itemType'].includes(a.local)) {
        const q = resolveQName(el, a.value);
        if (q && encNs.has(q.uri)) report('NO-SOAP-ENCODING', el, `${a.local}="${a.value}" refers to the SOAP encoding namespace`);
      }
    }
    if (encNs.has(el.uri)) report('NO-SOAP-ENCODING', el, `element ${el.name} is in the SOAP encoding namespace`);
  }
}

function checkServices(m: WsdlModel, report: Report): void {
  for (const s of m.services) {
    for (const p of s.ports) {
      if (!p.binding || !findBinding(m, p.binding.q)) report('REF-BINDING', p.el, `port ${p.name}: binding="${p.binding?.raw ?? ''}" does not resolve`);
      if (!p.address || !attr(p.address, 'location')) report('REF-BINDING', p.el, `port ${p.name} has no address location`);
    }
  }
  if (m.services.length !== 1) {
    report('SVAPI-PORTS', m.root, `${m.services.length} wsdl:service elements; exactly one`);
    return;
  }
  const s = m.services[0];
  const want: Array<[string, string, string, string | undefined]> = [
    [`${s.name}Soap`, 'soap11', NS.soap, undefined],
    [`${s.name}Soap12`, 'soap12', NS.soap12, undefined],
    [`${s.name}HttpGet`, 'http', NS.http, 'GET'],
    [`${s.name}HttpPost`, 'http', NS.http, 'POST'],
  ];
  const locations = new Set<string>();
  for (const [name, kind, addrNs, verb] of want) {
    const port = s.ports.find((p) => p.name === name);
    if (!port) {
      report('SVAPI-PORTS', s.el, `service ${s.name} has no port ${name}`);
      continue;
    }
    const b = findBinding(m, port.binding?.q);
    if (b && (b.kind !== kind || (verb && attr(b.ext!, 'verb') !== verb))) report('SVAPI-PORTS', port.el, `port ${name} is bound to ${b.name}, a ${b.kind}${b.kind === 'http' ? ` ${attr(b.ext!, 'verb')}` : ''} binding; expected ${kind}${verb ? ` ${verb}` : ''}`);
    if (port.address && port.address.uri !== addrNs) report('SVAPI-PORTS', port.address, `port ${name}: address element is {${port.address.uri}}address`);
    const loc = port.address && attr(port.address, 'location');
    if (loc !== undefined) {
      locations.add(loc);
      if (!/^https?:\/\/[^/]+\/\S+$/.test(loc)) report('SVAPI-PORTS', port.address, `port ${name}: location "${loc}" is not an absolute http URL with a path`);
    }
  }
  if (s.ports.length !== 4) report('SVAPI-PORTS', s.el, `service ${s.name} has ${s.ports.length} ports; exactly four`);
  if (locations.size > 1) report('SVAPI-PORTS', s.el, `the ports of ${s.name} have different addresses: ${[...locations].join(', ')}`);
}

function checkServiceErrorFaults(m: WsdlModel, report: Report): void {
  for (const b of m.bindings) {
    if (b.kind !== 'soap11' && b.kind !== 'soap12') continue;
    const pt = findPortType(m, b.type?.q);
    for (const op of pt?.operations ?? []) {
      const f = op.faults.find((x) => x.name === 'ServiceError');
      const msg = findMessage(m, f?.message?.q);
      const part = msg?.parts.length === 1 ? msg.parts[0] : undefined;
      const ok = part?.element?.q && part.element.q.uri === m.tns && part.element.q.local === 'ServiceError';
      if (!ok) report('SVAPI-FAULT', op.el, `${pt!.name}.${op.name} must declare wsdl:fault name="ServiceError" whose message has one part element="tns:ServiceError"`);
    }
  }
}

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n += 1;
  return n;
}

function checkNamespacePlaceholder(m: WsdlModel, report: Report): void {
  const P = PLACEHOLDER_NAMESPACE;
  if (m.tns !== P) report('SVAPI-NAMESPACE', m.root, `targetNamespace is "${m.tns}"; the WSDL files use the placeholder "${P}"`);
  let inAttrs = 0;
  for (const el of [m.root, ...descendants(m.root)]) {
    const values = [...el.attrs.map((a) => [a.local, a.value]), ...el.nsDecls.map(([, u]) => ['xmlns', u])];
    for (const [name, v] of values) {
      if (v === P || (name === 'soapAction' && v.startsWith(`${P}/`))) inAttrs += countOccurrences(v, P);
      else if (v.includes(P)) report('SVAPI-NAMESPACE', el, `attribute value "${v}" contains ${P} but is neither ${P} nor a soapAction ${P}/...`);
    }
  }
  const total = countOccurrences(m.text, P);
  if (total !== inAttrs) {
    const lines = m.text.split('\n');
    const bad = lines
      .map((l, i) => [l, i + 1] as const)
      .filter(([l]) => l.includes(P) && !/="SVAPI"|soapAction="SVAPI\//.test(l))
      .map(([, n]) => n);
    report('SVAPI-NAMESPACE', undefined, `${total - inAttrs} occurrence(s) of ${P} outside substitutable attribute values (lines ${bad.join(', ') || '?'}): the server would not rewrite them`);
  }
}

function enclosingComplexTypeName(el: XElement): string | undefined {
  for (let p = el.parent; p; p = p.parent) if (p.uri === NS.xs && p.local === 'complexType') return attr(p, 'name');
  return undefined;
}

function checkContractSchema(m: WsdlModel, report: Report): void {
  for (const s of m.schemas) {
    for (const el of descendants(s.el)) {
      if (el.uri !== NS.xs || el.local !== 'element') continue;
      const topLevel = el.parent === s.el;
      const owner = enclosingComplexTypeName(el);
      const name = attr(el, 'name') ?? '';
      const typeQ = resolveQName(el, attr(el, 'type') ?? '');
      const isArrayItem = !!owner?.startsWith('ArrayOf');

      // nillable
      const nillableMember =
        (typeQ?.uri === m.tns && typeQ.local === 'Description') ||
        (owner === 'Landarea' && name === 'Planet') ||
        (owner === 'Planet' && name === 'Description');
      if (attr(el, 'nillable') === 'true') {
        const allowed = topLevel || isArrayItem || nillableMember;
        if (!allowed) report('CONTRACT-NILLABLE', el, `${owner ?? 'element'}.${name} is nillable; CONTRACT §4 does not allow it`);
      }

      // occurrences
      if (topLevel || owner === 'ServiceError') continue;
      const min = attr(el, 'minOccurs') ?? '1';
      const max = attr(el, 'maxOccurs') ?? '1';
      let want: [string, string];
      if (isArrayItem) want = ['0', 'unbounded'];
      else if (typeQ?.uri === NS.xs && VALUE_TYPES.has(typeQ.local)) want = ['1', '1'];
      // A nil-able member is always sent, nil or not: minOccurs="0" would make JAXB map it to JAXBElement<T>.
      else if (nillableMember) want = ['1', '1'];
      else want = ['0', '1'];
      if (min !== want[0] || max !== want[1] || attr(el, 'minOccurs') === undefined || attr(el, 'maxOccurs') === undefined) {
        report('CONTRACT-OCCURS', el, `${owner ?? 'element'}.${name}: minOccurs="${attr(el, 'minOccurs') ?? ''}" maxOccurs="${attr(el, 'maxOccurs') ?? ''}", expected minOccurs="${want[0]}" maxOccurs="${want[1]}" written out`);
      }
    }
  }
}

/** The form served at `<path>?wsdl` declares no typed fault (ASMX declared none). */
function checkLegacyNoFault(m: WsdlModel, report: Report): void {
  for (const pt of m.portTypes) for (const op of pt.operations) for (const f of op.faults) report('LEGACY-NO-FAULT', f.el, `${pt.name}.${op.name} declares wsdl:fault "${f.name ?? ''}"`);
  for (const b of m.bindings) for (const op of b.operations) for (const f of op.faults) report('LEGACY-NO-FAULT', f, `${b.name}.${op.name} binds wsdl:fault "${attr(f, 'name') ?? ''}"`);
  for (const msg of m.messages) {
    if (msg.parts.some((p) => p.element?.q?.uri === m.tns && p.element.q.local === 'ServiceError')) report('LEGACY-NO-FAULT', msg.el, `message ${msg.name} names tns:ServiceError`);
  }
  for (const s of m.schemas) {
    for (const el of elements(s.el, NS.xs)) {
      if (attr(el, 'name') === 'ServiceError') report('LEGACY-NO-FAULT', el, `the schema declares ${el.local} ServiceError`);
    }
  }
}

/**
 * All rules of (b) on one parsed WSDL, in the form it is served: `faults` is the file as it is
 * (`<path>?wsdl=faults`), `legacy` the form without the typed fault (`<path>?wsdl`).
 */
export function checkWsdlModel(m: WsdlModel, form: WsdlForm = 'faults'): Problem[] {
  const problems: Problem[] = [];
  const report: Report = (rule, el, message) => {
    if (!(rule in RULES)) throw new Error(`unknown rule ${rule}`);
    problems.push({ file: m.file, line: el?.line, rule, message });
  };
  checkXml(m, report);
  checkRoot(m, report);
  checkUnique(m, report);
  checkSchemas(m, report);
  checkMessages(m, report);
  checkPortTypes(m, report);
  checkBindings(m, report);
  checkNoSoapEncoding(m, report);
  checkServices(m, report);
  if (form === 'faults') checkServiceErrorFaults(m, report);
  else checkLegacyNoFault(m, report);
  checkNamespacePlaceholder(m, report);
  checkContractSchema(m, report);
  return problems;
}

/** All rules of (b) on the text of one WSDL in a served form (a parse error is a problem too). */
export function checkWsdlText(text: string, file: string, form: WsdlForm = 'faults'): Problem[] {
  let m: WsdlModel;
  try {
    m = readWsdl(text, file);
  } catch (e) {
    if (e instanceof XmlParseError) return [{ file, rule: 'XML', message: e.message }];
    throw e;
  }
  return checkWsdlModel(m, form);
}

/** The rules on each WSDL as `<path>?wsdl` serves it (the default namespace, the files' addresses). */
export function checkLegacyForms(): Problem[] {
  const docs = new WsdlDocuments(PLACEHOLDER_NAMESPACE);
  return ENDPOINTS.flatMap((e) => checkWsdlText(docs.wsdl(e, 'http://localhost:8080', 'legacy'), `${path.join(WSDL_DIR, e.wsdlFile)} (as served at ?wsdl)`, 'legacy'));
}

/** SHARED-TYPES across several WSDLs. */
export function checkSharedTypes(models: WsdlModel[]): Problem[] {
  const problems: Problem[] = [];
  const first = new Map<string, { file: string; text: string }>();
  for (const m of models) {
    const components: Array<[string, XElement]> = [];
    for (const s of m.schemas) {
      for (const el of elements(s.el, NS.xs)) {
        const n = attr(el, 'name');
        if (n !== undefined) components.push([`schema ${el.local} ${n}`, el]);
      }
    }
    for (const msg of m.messages) components.push([`wsdl:message ${msg.name}`, msg.el]);
    for (const [key, el] of components) {
      const text = canonical(el);
      const seen = first.get(key);
      if (!seen) first.set(key, { file: m.file, text });
      else if (seen.text !== text) {
        problems.push({ file: m.file, line: el.line, rule: 'SHARED-TYPES', message: `${key} differs from its declaration in ${path.basename(seen.file)}` });
      }
    }
  }
  return problems;
}

// --- (a) xmllint -----------------------------------------------------------------

export const W3C_DIR = path.join(WSDL_DIR, 'w3c');
export const SAMPLES_DIR = path.join(WSDL_DIR, 'samples');
const DRIVER_SCHEMA = path.join(W3C_DIR, 'wsdl11-with-bindings.xsd');
const CATALOG = path.join(W3C_DIR, 'catalog.xml');

/** The xmllint version line, or null when xmllint is not installed. */
export function xmllintVersion(): string | null {
  const r = spawnSync('xmllint', ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return null;
  return (r.stderr || r.stdout).split('\n')[0].trim();
}

export const XMLLINT_MISSING = 'xmllint not found: install it with `apt-get install -y libxml2-utils` (Debian/Ubuntu)';

function runXmllint(args: string[], rule: string, rename: Map<string, string>): Problem[] {
  const r = spawnSync('xmllint', ['--noout', '--nonet', ...args], {
    encoding: 'utf8',
    env: { ...process.env, XML_CATALOG_FILES: CATALOG },
  });
  if (r.error) return [{ file: args[args.length - 1], rule, message: `cannot run xmllint: ${r.error.message}` }];
  // xmllint prints "file:line: message", sometimes followed by the offending
  // source line and a caret line (context, skipped), and "file validates" /
  // "file fails to validate" / "... failed to compile" per file.
  const problems: Problem[] = [];
  let lastWasHeader = false;
  for (const raw of `${r.stdout}\n${r.stderr}`.split('\n')) {
    const lineText = raw.trimEnd();
    if (!lineText.trim() || / validates$/.test(lineText)) {
      lastWasHeader = false;
      continue;
    }
    const mm = /^(\/.+?|[^\s:]+?):(\d+): (.*)$/.exec(lineText);
    if (mm) {
      lastWasHeader = true;
      // The placeholder namespace is a relative URI; libxml2 warns about it as a
      // default namespace. That is expected until the server substitutes it.
      if (new RegExp(`namespace warning : xmlns: URI ${PLACEHOLDER_NAMESPACE} is not absolute`).test(mm[3])) continue;
      problems.push({ file: rename.get(mm[1]) ?? mm[1], line: Number(mm[2]), rule, message: mm[3] });
      continue;
    }
    const summary = /^(\S+) (fails to validate|validation generated an internal error)$|^WXS schema (\S+) failed to compile$/.exec(lineText);
    if (summary) {
      const f = summary[1] ?? summary[3];
      problems.push({ file: rename.get(f) ?? f, rule, message: summary[2] ?? 'schema failed to compile' });
      lastWasHeader = false;
      continue;
    }
    if (lastWasHeader) continue; // source context of the previous message
    let msg = lineText.trim();
    for (const [from, to] of rename) msg = msg.split(from).join(to);
    problems.push({ file: '-', rule, message: msg });
  }
  if (r.status !== 0 && problems.length === 0) problems.push({ file: args[args.length - 1], rule, message: `xmllint exited with status ${r.status}` });
  return problems;
}

/**
 * (a) for one WSDL: validate it against the WSDL/binding/XSD schemas, then
 * compile its inline schema and validate the sample documents with it.
 * `samplesDir` defaults to wsdl/samples/<basename>/.
 */
export function xmllintCheck(wsdlPath: string, samplesDir?: string): Problem[] {
  const problems = runXmllint(['--schema', DRIVER_SCHEMA, wsdlPath], 'XSD-VALID', new Map());

  const m = readWsdl(fs.readFileSync(wsdlPath, 'utf8'), wsdlPath);
  const base = path.basename(wsdlPath, '.wsdl');
  const dir = samplesDir ?? path.join(SAMPLES_DIR, base);
  const samples = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.xml'))
        .sort()
        .map((f) => path.join(dir, f))
    : [];
  if (samples.length === 0) {
    problems.push({ file: wsdlPath, rule: 'XSD-COMPILE', message: `no sample documents (*.xml) in ${dir} to compile the inline schema against` });
    return problems;
  }
  if (m.schemas.length !== 1) {
    problems.push({ file: wsdlPath, rule: 'XSD-COMPILE', message: `expected exactly one inline xs:schema, found ${m.schemas.length}` });
    return problems;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-wsdl-'));
  try {
    const xsd = path.join(tmp, `${base}.xsd`);
    fs.writeFileSync(xsd, `<?xml version="1.0" encoding="utf-8"?>\n${serialize(m.schemas[0].el, true)}\n`);
    const rename = new Map([[xsd, `${wsdlPath} (inline schema, extracted)`]]);
    // The extracted file has the XML declaration on line 1 and the schema from
    // line 2, line breaks kept: map its line numbers back to the WSDL's.
    const offset = m.schemas[0].el.line - 2;
    for (const p of runXmllint(['--schema', xsd, ...samples], 'XSD-COMPILE', rename)) {
      problems.push(p.file === rename.get(xsd) && p.line ? { ...p, line: p.line + offset } : p);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return problems;
}

// --- command line ------------------------------------------------------------------

export function formatProblem(p: Problem, cwd = process.cwd()): string {
  const f = path.isAbsolute(p.file) ? path.relative(cwd, p.file) : p.file;
  return `${f}${p.line ? `:${p.line}` : ''}: [${p.rule}] ${p.message}`;
}

export function main(argv: string[]): number {
  if (argv.includes('--rules')) {
    for (const [id, text] of Object.entries(RULES)) console.log(`${id.padEnd(18)} ${text}`);
    return 0;
  }
  const useXmllint = !argv.includes('--no-xmllint');
  const args = argv.filter((a) => !a.startsWith('--'));
  const files = args.length > 0 ? args.map((a) => path.resolve(a)) : WSDL_FILES.map((f) => path.join(WSDL_DIR, f));

  const problems: Problem[] = [];
  const models: WsdlModel[] = [];
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    problems.push(...checkWsdlText(text, f));
    try {
      models.push(readWsdl(text, f));
    } catch {
      // reported above
    }
  }
  problems.push(...checkSharedTypes(models));
  if (args.length === 0) problems.push(...checkLegacyForms());

  let xmllintNote = '';
  if (useXmllint) {
    const version = xmllintVersion();
    if (!version) problems.push({ file: '-', rule: 'XSD-VALID', message: `${XMLLINT_MISSING}; or run with --no-xmllint to skip schema validation` });
    else {
      for (const f of files) problems.push(...xmllintCheck(f));
      xmllintNote = ` and ${version}`;
    }
  } else xmllintNote = ' (xmllint skipped)';

  for (const p of problems) console.error(formatProblem(p));
  const summary = `check-wsdl: ${files.length} WSDL file(s), ${Object.keys(RULES).length} rules${xmllintNote}: ${problems.length} problem(s)`;
  if (problems.length > 0) {
    console.error(summary);
    return 1;
  }
  console.log(summary);
  return 0;
}

if (require.main === module || path.resolve(process.argv[1] ?? '') === __filename) {
  process.exitCode = main(process.argv.slice(2));
}
