import { setMaxListeners } from 'node:events';
import { parseXmlTree, type XmlNode } from './xml-tree';
import type { BindingKind } from './wsdl-contract';

// One request to one side, on one binding, at the side's pace: the rate cap, a time-out per call
// and the run's deadline. Nothing but `?wsdl` and the read operations is ever sent.

export interface Credential {
  devId: string;
  devKey: string;
}

export type Outcome =
  | { kind: 'answer'; root: XmlNode }
  /** The service refused the call: an HTTP error status or a SOAP fault. */
  | { kind: 'refused'; status: number; code: string; message: string; detail: boolean }
  /** No usable answer: the network, a time-out, or a body that is not XML. */
  | { kind: 'failed'; reason: string; network: boolean };

const SOAP11_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12_ENV = 'http://www.w3.org/2003/05/soap-envelope';

/** At most `perSecond` starts a second, evenly spaced; waits end early when the run's time is up. */
export class RateLimiter {
  private next = 0;

  constructor(private readonly perSecond: number, private readonly deadline: Deadline) {}

  async take(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + 1000 / this.perSecond;
    if (at > now) await this.deadline.sleep(at - now);
  }
}

/** The bound on the whole run: once it passes, waits end and calls in flight are aborted. */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(readonly ms: number) {
    this.timer = setTimeout(() => this.controller.abort(new Error('the run\'s time limit was reached')), ms);
    this.timer.unref();
    // Every call and wait of the run listens to it.
    setMaxListeners(0, this.controller.signal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get passed(): boolean {
    return this.controller.signal.aborted;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.passed) return resolve();
      const signal = this.controller.signal;
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

export interface SideClient {
  base: string;
  credential: Credential;
  limiter: RateLimiter;
  deadline: Deadline;
  timeoutMs: number;
  /** Requests sent so far. */
  sent: number;
}

/** GETs a text (a WSDL): the text on 200, else a failed or refused outcome. */
export async function getText(side: SideClient, url: string): Promise<{ text: string } | Exclude<Outcome, { kind: 'answer' }>> {
  const r = await send(side, url, { method: 'GET' });
  if ('reason' in r) return { kind: 'failed', reason: r.reason, network: true };
  if (r.status !== 200) return { kind: 'refused', status: r.status, code: `HTTP ${r.status}`, message: firstLine(r.body), detail: false };
  return { text: r.body };
}

interface CallSpec {
  operation: string;
  /** Endpoint path. */
  path: string;
  /** Parameters after the credential, in wire order. */
  params: readonly [string, string][];
  namespace: string;
  soapAction: string;
}

/** Calls an operation on a binding and reads what came back. */
export async function callOperation(side: SideClient, binding: BindingKind, spec: CallSpec): Promise<Outcome> {
  const params: [string, string][] = [['DevID', side.credential.devId], ['DevKey', side.credential.devKey], ...spec.params];
  const endpoint = side.base + spec.path;
  let r;
  if (binding === 'httpGet') {
    r = await send(side, `${endpoint}/${spec.operation}?${new URLSearchParams(params)}`, { method: 'GET' });
  } else if (binding === 'httpPost') {
    r = await send(side, `${endpoint}/${spec.operation}`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: String(new URLSearchParams(params)),
    });
  } else {
    const soap11 = binding === 'soap11';
    const body = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${soap11 ? SOAP11_ENV : SOAP12_ENV}"><soap:Body>`
      + `<${spec.operation} xmlns="${escapeXml(spec.namespace)}">${params.map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`).join('')}</${spec.operation}>`
      + '</soap:Body></soap:Envelope>';
    const headers: Record<string, string> = soap11
      ? { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${spec.soapAction}"` }
      : { 'content-type': `application/soap+xml; charset=utf-8; action="${spec.soapAction}"` };
    r = await send(side, endpoint, { method: 'POST', headers, body });
  }
  if ('reason' in r) return { kind: 'failed', reason: r.reason, network: true };
  return readOutcome(r.status, r.body, binding);
}

function readOutcome(status: number, body: string, binding: BindingKind): Outcome {
  let root: XmlNode | undefined;
  try {
    root = parseXmlTree(body);
  } catch {
    root = undefined;
  }
  const fault = root && faultOf(root);
  if (fault) return { kind: 'refused', status, ...fault };
  if (status !== 200) {
    const code = root && root.local === 'ServiceError' ? root.children.find((c) => c.local === 'Code')?.text.trim() : undefined;
    const message = root ? root.children.find((c) => c.local === 'Message')?.text.trim() ?? '' : firstLine(body);
    return { kind: 'refused', status, code: code ?? `HTTP ${status}`, message, detail: false };
  }
  if (!root) return { kind: 'failed', reason: `the answer (HTTP 200) is not XML: ${firstLine(body)}`, network: false };
  if (binding === 'soap11' || binding === 'soap12') {
    if (root.local !== 'Envelope' || ![SOAP11_ENV, SOAP12_ENV].includes(root.uri)) {
      return { kind: 'failed', reason: `the answer (HTTP 200) is not a SOAP envelope but <${root.local}>`, network: false };
    }
  }
  return { kind: 'answer', root };
}

/** A SOAP fault's code, text and whether it has a detail with content. */
function faultOf(root: XmlNode): { code: string; message: string; detail: boolean } | undefined {
  if (root.local !== 'Envelope') return undefined;
  const body = root.children.find((c) => c.local === 'Body');
  const fault = body?.children.find((c) => c.local === 'Fault' && (c.uri === SOAP11_ENV || c.uri === SOAP12_ENV));
  if (!fault) return undefined;
  const child = (n: XmlNode | undefined, local: string) => n?.children.find((c) => c.local === local);
  if (fault.uri === SOAP11_ENV) {
    const detail = child(fault, 'detail');
    return {
      code: child(fault, 'faultcode')?.text.trim().replace(/^.*:/, 'soap:') ?? '',
      message: child(fault, 'faultstring')?.text.trim() ?? '',
      detail: !!detail && (detail.children.length > 0 || detail.text.trim() !== ''),
    };
  }
  const detail = child(fault, 'Detail');
  return {
    code: child(child(fault, 'Code'), 'Value')?.text.trim().replace(/^.*:/, 'env:') ?? '',
    message: child(child(fault, 'Reason'), 'Text')?.text.trim() ?? '',
    detail: !!detail && (detail.children.length > 0 || detail.text.trim() !== ''),
  };
}

async function send(side: SideClient, url: string, init: RequestInit): Promise<{ status: number; body: string } | { reason: string }> {
  if (side.deadline.passed) return { reason: 'the run\'s time limit was reached' };
  await side.limiter.take();
  if (side.deadline.passed) return { reason: 'the run\'s time limit was reached' };
  side.sent++;
  const timeout = AbortSignal.timeout(side.timeoutMs);
  try {
    const res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.any([timeout, side.deadline.signal]) });
    return { status: res.status, body: await res.text() };
  } catch (e) {
    if (timeout.aborted) return { reason: `no answer within ${side.timeoutMs / 1000} s` };
    if (side.deadline.passed) return { reason: 'the run\'s time limit was reached' };
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { reason: cause?.code ?? cause?.message ?? (e as Error).message };
  }
}

const firstLine = (text: string) => text.trim().split('\n')[0].slice(0, 120);

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
