import { ENDPOINTS, Operations } from '../generated/records';
import { soapActionFor } from '../xml/soap-action';
import { diffAnswers, type AnswerDifference } from './answer-diff';
import { callOperation, Deadline, getText, RateLimiter, type Credential, type Outcome, type SideClient } from './calls';
import { compareContracts, type ContractFinding } from './contract-diff';
import { EDGE_WORDS, INVALID_NUMBER_OF_GLOBALS, NUMBER_OF_GLOBALS, sample, textsOf, UNKNOWN_ID, wordsFrom } from './plan';
import { BINDING_KINDS, readContract, WsdlError, type BindingKind, type Contract } from './wsdl-contract';
import type { XmlNode } from './xml-tree';

export interface CompareOptions {
  legacyUrl: string;
  svapiUrl: string;
  legacy: Credential;
  svapi: Credential;
  /** How many values of each kind (IDs, words) to call with, besides the edge cases. */
  samples: number;
  /** Requests a second to each side, at most. */
  rate: number;
  timeoutMs: number;
  maxTimeMs: number;
  /** Calls in flight at once (each a pair, one to each side). */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

type Side = 'legacy' | 'svapi';

export interface CallResult {
  operation: string;
  binding: BindingKind;
  /** The operation's parameters, never the credential. */
  params: Record<string, string>;
  status: 'equal' | 'differs' | 'error';
  /** Both sides refused: the same to a client; how the refusals differ is expected and only shown. */
  bothRefused?: { legacy: string; svapi: string; detailDiffers: boolean };
  /** The kinds of difference this call showed (for the totals). */
  kinds: string[];
  first?: { path: string; legacy: string; svapi: string };
}

export interface CompareResult {
  legacyUrl: string;
  svapiUrl: string;
  contract: ContractFinding[];
  /** The legacy namespace, when svapi must be told it (SVAPI_NAMESPACE). */
  namespaceAdvice?: string;
  /** Per operation, which bindings each side's WSDL offers. */
  offered: Record<string, Record<BindingKind, { legacy: boolean; svapi: boolean }>>;
  calls: CallResult[];
  unreachable?: { side: Side; reason: string };
  /** Why not every planned call was made. */
  incomplete?: string;
  requests: Record<Side, number>;
  elapsedMs: number;
}

/** Where the eight operations are, and their parameters after the credential. */
const OPERATIONS = Operations.map((o) => ({ name: o.name as string, path: o.path as string, params: o.params.slice(2).map((p) => p.name as string) }));

/** Consecutive calls without any answer after which a side counts as gone. */
const GONE_AFTER = 5;

export async function runCompare(opts: CompareOptions): Promise<CompareResult> {
  const started = Date.now();
  const deadline = new Deadline(opts.maxTimeMs);
  const client = (base: string, credential: Credential): SideClient => ({
    base: base.replace(/\/+$/, ''), credential, limiter: new RateLimiter(opts.rate, deadline), deadline, timeoutMs: opts.timeoutMs, sent: 0,
  });
  const sides: Record<Side, SideClient> = { legacy: client(opts.legacyUrl, opts.legacy), svapi: client(opts.svapiUrl, opts.svapi) };
  const result: CompareResult = {
    legacyUrl: opts.legacyUrl, svapiUrl: opts.svapiUrl, contract: [], offered: {}, calls: [], requests: { legacy: 0, svapi: 0 }, elapsedMs: 0,
  };
  try {
    const contracts = await fetchContracts(sides, result);
    if (!result.unreachable) await new AnswerRun(sides, contracts, result, opts).run();
    if (deadline.passed && !result.unreachable) result.incomplete = `the time limit (${opts.maxTimeMs / 1000} s) was reached before every call was made`;
  } finally {
    deadline.clear();
  }
  result.requests = { legacy: sides.legacy.sent, svapi: sides.svapi.sent };
  result.elapsedMs = Date.now() - started;
  return result;
}

/** 0: nothing a client would notice differs; 1: something does (or could not be checked); 2: a side is unreachable. */
export function exitCodeOf(r: CompareResult): 0 | 1 | 2 {
  if (r.unreachable) return 2;
  if (r.incomplete || r.contract.some((f) => f.severity === 'differs') || r.calls.some((c) => c.status !== 'equal')) return 1;
  return 0;
}

type Contracts = Map<string, Record<Side, Contract | undefined>>;

/** `?wsdl` of the four endpoints from both sides, and what their differences mean to a client. */
async function fetchContracts(sides: Record<Side, SideClient>, result: CompareResult): Promise<Contracts> {
  const contracts: Contracts = new Map();
  const fetchSide = async (side: Side) => {
    const problems: string[] = [];
    for (const e of ENDPOINTS) {
      const got = await getText(sides[side], `${sides[side].base}${e.path}?wsdl`);
      const entry = contracts.get(e.path) ?? { legacy: undefined, svapi: undefined };
      contracts.set(e.path, entry);
      if ('text' in got) {
        try {
          entry[side] = readContract(got.text);
        } catch (err) {
          if (!(err instanceof WsdlError)) throw err;
          problems.push(`${e.path}?wsdl: ${err.message}`);
        }
      } else if (got.kind === 'failed') {
        result.unreachable ??= { side, reason: `${sides[side].base}${e.path}?wsdl: ${got.reason}` };
        return;
      } else {
        problems.push(`${e.path}?wsdl: ${got.code}`);
      }
    }
    if (ENDPOINTS.every((e) => !contracts.get(e.path)![side])) {
      result.unreachable ??= { side, reason: `no endpoint served a WSDL (${problems[0]})` };
    }
  };
  await Promise.all([fetchSide('legacy'), fetchSide('svapi')]);
  if (result.unreachable) return contracts;
  const known = OPERATIONS.map((o) => o.name);
  for (const e of ENDPOINTS) {
    const { legacy, svapi } = contracts.get(e.path)!;
    if (legacy && svapi) result.contract.push(...compareContracts(e.path, legacy, svapi, known));
    else if (legacy || svapi) {
      result.contract.push({
        endpoint: e.path, where: '?wsdl', kind: legacy ? 'endpoint missing on svapi' : 'endpoint not served by legacy',
        legacy: legacy ? 'WSDL' : 'none', svapi: svapi ? 'WSDL' : 'none', severity: legacy ? 'differs' : 'note',
      });
    }
    for (const op of e.operations) {
      result.offered[op] = Object.fromEntries(BINDING_KINDS.map((k) => [k, {
        legacy: !!legacy?.bindings.get(k)?.has(op), svapi: !!svapi?.bindings.get(k)?.has(op),
      }])) as Record<BindingKind, { legacy: boolean; svapi: boolean }>;
    }
  }
  const ns = [...contracts.values()].find((c) => c.legacy && c.svapi && c.legacy.targetNamespace !== c.svapi.targetNamespace);
  if (ns) result.namespaceAdvice = ns.legacy!.targetNamespace;
  return contracts;
}

interface Planned {
  operation: string;
  params: [string, string][];
}

/** What one planned call gave on every binding both sides offer: the answers, for the next stage's values. */
type Answers = Record<Side, XmlNode[]>;

class AnswerRun {
  private done = 0;
  private total = 0;
  private readonly failures: Record<Side, number> = { legacy: 0, svapi: 0 };

  constructor(
    private readonly sides: Record<Side, SideClient>,
    private readonly contracts: Contracts,
    private readonly result: CompareResult,
    private readonly opts: CompareOptions,
  ) {}

  private get stopped(): boolean {
    return !!this.result.unreachable || this.sides.legacy.deadline.passed;
  }

  async run(): Promise<void> {
    const n = this.opts.samples;
    const first = await this.stage([
      { operation: 'GetMonsters', params: [['SearchWord', '']] },
      { operation: 'GetWeapons', params: [['SearchWord', '']] },
      { operation: 'FindItems', params: [['SearchWord', '']] },
      { operation: 'GetAuctionCategories', params: [] },
    ]);
    const values = (i: number, local: string, within?: string) => (side: Side) => first[i][side].flatMap((r) => textsOf(r, local, within));
    const pick = (of: (side: Side) => string[]) => sample(of('legacy'), of('svapi'), n);
    const monsters = pick(values(0, 'MonsterID'));
    const search = (operation: string, names: string[]): Planned[] =>
      [...wordsFrom(names), ...EDGE_WORDS].map((w) => ({ operation, params: [['SearchWord', w]] }));
    const second = await this.stage([
      ...[...monsters, UNKNOWN_ID].map((id): Planned => ({ operation: 'GetMonster', params: [['MonsterID', id]] })),
      ...[...monsters, UNKNOWN_ID].map((id): Planned => ({ operation: 'GetMonsterGlobals', params: [['MonsterID', id], ['NumberOfGlobals', NUMBER_OF_GLOBALS]] })),
      ...(monsters.length ? [{ operation: 'GetMonsterGlobals', params: [['MonsterID', monsters[0]], ['NumberOfGlobals', INVALID_NUMBER_OF_GLOBALS]] } as Planned] : []),
      ...search('GetMonsters', pick(values(0, 'MonsterName'))),
      ...search('GetWeapons', pick(values(1, 'WeaponName'))),
      ...search('FindItems', pick(values(2, 'ItemName'))),
    ]);
    const globals = (local: string, within?: string) => (side: Side) => second.flatMap((a) => a[side].flatMap((r) => textsOf(r, local, within)));
    await this.stage([
      ...[...pick(globals('PlayerID', 'Player')), UNKNOWN_ID].map((id): Planned => ({ operation: 'GetPlayerGlobals', params: [['playerID', id], ['NumberOfGlobals', NUMBER_OF_GLOBALS]] })),
      ...[...pick(globals('AreaID', 'Landarea')), UNKNOWN_ID].map((id): Planned => ({ operation: 'GetLandareaGlobals', params: [['LandareaID', id]] })),
    ]);
  }

  /** Makes the planned calls on every binding both sides offer, a few pairs at a time. */
  private async stage(planned: Planned[]): Promise<Answers[]> {
    const jobs: { i: number; p: Planned; binding: BindingKind }[] = [];
    planned.forEach((p, i) => {
      for (const binding of BINDING_KINDS) {
        const offered = this.result.offered[p.operation]?.[binding];
        if (offered?.legacy && offered.svapi) jobs.push({ i, p, binding });
      }
    });
    this.total += jobs.length;
    this.opts.onProgress?.(this.done, this.total);
    const answers: Answers[] = planned.map(() => ({ legacy: [], svapi: [] }));
    let next = 0;
    const worker = async () => {
      while (next < jobs.length && !this.stopped) {
        const job = jobs[next++];
        await this.pair(job.p, job.binding, answers[job.i]);
        this.opts.onProgress?.(++this.done, this.total);
      }
    };
    await Promise.all(Array.from({ length: this.opts.concurrency ?? 4 }, worker));
    return answers;
  }

  private async pair(p: Planned, binding: BindingKind, answers: Answers): Promise<void> {
    const op = OPERATIONS.find((o) => o.name === p.operation)!;
    const call = (side: Side) => {
      const contract = this.contracts.get(op.path)![side]!;
      const action = contract.bindings.get(binding === 'soap12' ? 'soap12' : 'soap11')?.get(op.name)?.action;
      return callOperation(this.sides[side], binding, {
        operation: op.name, path: op.path, params: p.params, namespace: contract.targetNamespace,
        soapAction: action || soapActionFor(contract.targetNamespace, op.name),
      });
    };
    const [legacy, svapi] = await Promise.all([call('legacy'), call('svapi')]);
    if (this.stopped && (isTimeUp(legacy) || isTimeUp(svapi))) return;
    for (const [side, o] of [['legacy', legacy], ['svapi', svapi]] as const) {
      if (o.kind === 'answer') answers[side].push(o.root);
      this.failures[side] = o.kind === 'failed' && o.network ? this.failures[side] + 1 : 0;
      if (this.failures[side] >= GONE_AFTER) this.result.unreachable ??= { side, reason: `${GONE_AFTER} calls in a row got no answer (last: ${(o as { reason: string }).reason})` };
    }
    this.result.calls.push(this.judge(op.name, binding, p, legacy, svapi));
  }

  private judge(operation: string, binding: BindingKind, p: Planned, legacy: Outcome, svapi: Outcome): CallResult {
    const base = { operation, binding, params: Object.fromEntries(p.params) };
    if (legacy.kind === 'failed' || svapi.kind === 'failed') {
      const reason = (side: Side, o: Outcome) => (o.kind === 'failed' ? [`${side}: ${o.reason}`] : []);
      const reasons = [...reason('legacy', legacy), ...reason('svapi', svapi)];
      return { ...base, status: 'error', kinds: reasons.map((r) => `call failed (${r.replace(/\d+(\.\d+)? s\b/, 'N s')})`), first: { path: '(call)', legacy: outcomeText(legacy), svapi: outcomeText(svapi) } };
    }
    if (legacy.kind === 'refused' && svapi.kind === 'refused') {
      const detailDiffers = legacy.detail !== svapi.detail || legacy.message !== svapi.message || legacy.code !== svapi.code || legacy.status !== svapi.status;
      return {
        ...base, status: 'equal', kinds: [detailDiffers ? 'both refuse; the fault detail differs (expected)' : 'both refuse'],
        bothRefused: { legacy: outcomeText(legacy), svapi: outcomeText(svapi), detailDiffers },
      };
    }
    if (legacy.kind !== svapi.kind) {
      return {
        ...base, status: 'differs', kinds: [legacy.kind === 'answer' ? 'legacy answers, svapi refuses' : 'svapi answers, legacy refuses'],
        first: { path: '(answer)', legacy: outcomeText(legacy), svapi: outcomeText(svapi) },
      };
    }
    const contract = this.contracts.get(OPERATIONS.find((o) => o.name === operation)!.path)!;
    const diffs = diffAnswers((legacy as { root: XmlNode }).root, (svapi as { root: XmlNode }).root, {
      legacyNs: contract.legacy!.targetNamespace, svapiNs: contract.svapi!.targetNamespace, schemas: [contract.legacy!, contract.svapi!],
    });
    if (!diffs.length) return { ...base, status: 'equal', kinds: [] };
    return {
      ...base, status: 'differs',
      kinds: [...new Set(diffs.map((d) => kindOf(operation, binding, d)))],
      first: { path: diffs[0].path, legacy: diffs[0].legacy, svapi: diffs[0].svapi },
    };
  }
}

const isTimeUp = (o: Outcome) => o.kind === 'failed' && o.reason.includes('time limit');

const WHAT: Record<AnswerDifference['what'], string> = {
  value: 'value differs', nil: 'nil on one side only', element: 'element name differs', attribute: 'attribute differs',
  'only in legacy': 'missing on svapi', 'only in svapi': 'extra on svapi',
};

/** `value differs at GetMonster result/Description/Description`: the same for every binding. */
function kindOf(operation: string, binding: BindingKind, d: AnswerDifference): string {
  const inside = d.names.slice(binding === 'soap11' || binding === 'soap12' ? 4 : 1);
  return `${WHAT[d.what]} at ${operation} result${inside.length ? `/${inside.join('/')}` : ''}`;
}

function outcomeText(o: Outcome): string {
  if (o.kind === 'answer') return `answer <${o.root.local}>`;
  if (o.kind === 'failed') return `no answer: ${o.reason}`;
  return `refused: HTTP ${o.status} ${o.code}${o.message ? ` "${o.message.slice(0, 100)}"` : ''}${o.detail ? ' with detail' : ' without detail'}`;
}
