import { BINDING_KINDS, BINDING_LABEL, type BindingKind, type Contract, type Field } from './wsdl-contract';

/** One thing about the WSDLs: `differs` is what a client generated from the legacy WSDL would notice. */
export interface ContractFinding {
  endpoint: string;
  /** What it is about: `GetMonster (SOAP 1.1)`, `type Monster, field Description`. */
  where: string;
  /** The kind of finding, for the totals: `target namespace`, `minOccurs`, `binding not offered`... */
  kind: string;
  legacy: string;
  svapi: string;
  severity: 'differs' | 'note';
}

/** The parts of the contract both WSDLs of one endpoint are compared on. */
export function compareContracts(endpoint: string, legacy: Contract, svapi: Contract, knownOperations: readonly string[]): ContractFinding[] {
  const out: ContractFinding[] = [];
  const add = (where: string, kind: string, l: string, s: string, severity: ContractFinding['severity'] = 'differs') =>
    out.push({ endpoint, where, kind, legacy: l, svapi: s, severity });

  if (legacy.targetNamespace !== svapi.targetNamespace) {
    add('targetNamespace', 'target namespace', legacy.targetNamespace, svapi.targetNamespace);
  }
  const nsAction = (c: Contract, op: string) => (c.targetNamespace.endsWith('/') ? c.targetNamespace + op : `${c.targetNamespace}/${op}`);
  const types = new TypePairs();
  // soapActions that only follow from the namespaces are one finding per endpoint, not one per operation.
  const followingActions: string[] = [];
  for (const kind of BINDING_KINDS) {
    const l = legacy.bindings.get(kind);
    const s = svapi.bindings.get(kind);
    if (!l && !s) continue;
    if (!l) {
      add(BINDING_LABEL[kind], 'binding not offered by legacy', 'not offered', 'offered', 'note');
      continue;
    }
    if (!s) {
      add(BINDING_LABEL[kind], 'binding missing on svapi', 'offered', 'not offered');
      continue;
    }
    for (const [name, lop] of l) {
      const where = `${name} (${BINDING_LABEL[kind]})`;
      const sop = s.get(name);
      if (!sop) {
        if (knownOperations.includes(name)) add(where, 'operation missing on svapi', 'offered', 'not offered');
        else add(where, 'legacy-only operation (not compared)', 'offered', 'not offered', 'note');
        continue;
      }
      if (lop.action !== sop.action) {
        const followsNamespace = isSoap(kind) && lop.action === nsAction(legacy, name) && sop.action === nsAction(svapi, name);
        if (followsNamespace) followingActions.push(where);
        else add(where, isSoap(kind) ? 'soapAction' : 'HTTP location', lop.action, sop.action);
      }
      comparePartLists(where, 'request message', lop.input, sop.input, add);
      comparePartLists(where, 'response message', lop.output, sop.output, add);
      for (const part of [...lop.input, ...lop.output]) {
        const element = /=tns:(.+)$/.exec(part)?.[1];
        if (element && (lop.input.includes(part) ? sop.input : sop.output).includes(part)) types.addElement(element);
      }
    }
    for (const name of s.keys()) {
      if (!l.has(name)) add(`${name} (${BINDING_LABEL[kind]})`, 'operation not offered by legacy', 'not offered', 'offered', 'note');
    }
  }
  if (followingActions.length) {
    add(`soapAction of ${followingActions.join(', ')}`, 'soapAction (follows the namespace)', nsAction(legacy, '<Operation>'), nsAction(svapi, '<Operation>'));
  }
  if (legacy.declaresFaults !== svapi.declaresFaults) {
    add('wsdl:fault', 'fault declarations (legacy clients unaffected)', legacy.declaresFaults ? 'declared' : 'none', svapi.declaresFaults ? 'declared' : 'none', 'note');
  }
  types.compare(legacy, svapi, add);
  return out;
}

const isSoap = (k: BindingKind) => k === 'soap11' || k === 'soap12';

type Add = (where: string, kind: string, legacy: string, svapi: string) => void;

function comparePartLists(where: string, what: string, l: string[], s: string[], add: Add): void {
  if (l.join(' ') !== s.join(' ')) add(`${where}, ${what}`, 'message parts', l.join(' ') || '(none)', s.join(' ') || '(none)');
}

/** The global elements and types reachable from the operations both sides offer, each compared once. */
class TypePairs {
  private readonly elements = new Set<string>();

  addElement(name: string): void {
    this.elements.add(name);
  }

  compare(legacy: Contract, svapi: Contract, add: Add): void {
    const done = new Set<string>();
    const queue: string[] = [];
    const follow = (type: string) => {
      if (!type.startsWith('s:') && !done.has(type)) {
        done.add(type);
        queue.push(type);
      }
    };
    for (const name of this.elements) {
      const l = legacy.elements.get(name);
      const s = svapi.elements.get(name);
      if (!l || !s) {
        add(`element ${name}`, 'schema element missing', l ? 'declared' : 'absent', s ? 'declared' : 'absent');
        continue;
      }
      if (l.type !== s.type) add(`element ${name}`, 'type', display(l.type), display(s.type));
      else follow(l.type);
      if (l.nillable !== s.nillable) add(`element ${name}`, 'nillable', String(l.nillable), String(s.nillable));
    }
    while (queue.length) {
      const type = queue.shift()!;
      const l = legacy.types.get(type);
      const s = svapi.types.get(type);
      const where = type.startsWith('#') ? `element ${type.slice(1)}` : `type ${display(type)}`;
      if (!l || !s) {
        add(where, 'schema type missing', l ? 'declared' : 'absent', s ? 'declared' : 'absent');
        continue;
      }
      compareFields(where, l, s, add, follow);
    }
  }
}

function compareFields(where: string, l: Field[], s: Field[], add: Add, follow: (type: string) => void): void {
  const ln = l.map((f) => f.name);
  const sn = s.map((f) => f.name);
  const common = ln.filter((n) => sn.includes(n));
  const missing = ln.filter((n) => !sn.includes(n));
  const extra = sn.filter((n) => !ln.includes(n));
  if (missing.length || extra.length) add(where, 'fields', ln.join(', '), sn.join(', '));
  else if (ln.join() !== sn.join()) add(where, 'field order', ln.join(', '), sn.join(', '));
  for (const name of common) {
    const a = l.find((f) => f.name === name)!;
    const b = s.find((f) => f.name === name)!;
    const at = `${where}, field ${name}`;
    if (a.type !== b.type) add(at, 'type', display(a.type), display(b.type));
    else follow(a.type);
    if (a.minOccurs !== b.minOccurs) add(at, 'minOccurs', a.minOccurs, b.minOccurs);
    if (a.maxOccurs !== b.maxOccurs) add(at, 'maxOccurs', a.maxOccurs, b.maxOccurs);
    if (a.nillable !== b.nillable) add(at, 'nillable', String(a.nillable), String(b.nillable));
  }
}

/** `tns:Monster` as `Monster`, `#GetMonsters` (the type of element GetMonsters) as `GetMonsters (anonymous)`. */
function display(type: string): string {
  if (type.startsWith('tns:')) return type.slice(4);
  if (type.startsWith('#')) return `${type.slice(1)} (anonymous)`;
  return type;
}
