import { errors, statusFor, type Binding } from '../errors';
import type { Logger } from '../log';
import { findOperation } from '../operations/catalog';
import { serviceErrorDocument, soapFault } from '../xml/faults';
import type { Endpoint } from './endpoints';
import { sendBody, type Res } from './exchange';
import type { Handler, OperationHandler } from './router';
import { SOAP_CONTENT_TYPES, XML_TYPE } from '../xml/vocabulary';
import { soapVersionOf } from './soap';
import { parseContentType } from '../xml/content-type';

/** How long a refused caller is told to wait (Retry-After, seconds). */
export const OVERLOAD_RETRY_AFTER_S = 1;
/** How often an overload in progress is logged (once when it starts, then at most this often). */
const OVERLOAD_LOG_MS = 10_000;

interface Refusal {
  status: number;
  type: string;
  body: string;
}

/**
 * Bounds the operation calls this process works on at once (SVAPI_MAX_IN_FLIGHT). A call beyond
 * the bound is refused at once, before its body is read or parsed, with ServiceUnavailable and
 * Retry-After: under overload some callers get a quick answer instead of every caller a late one
 * (requests beyond the database pool only queue, and their wait grows with the queue). A call
 * counts from its handler's start until the handler has written its answer (or the connection
 * closed first): the work, not the sending of the bytes, so answers from the cache hardly count
 * even when many arrive together. Pages, WSDLs, /healthz, /readyz and /metrics do not pass here.
 */
export class InFlightLimit {
  inFlight = 0;
  /** Calls refused since the start. */
  refused = 0;
  private readonly refusals: Record<Binding, Refusal>;
  private readonly headers: Record<string, string>;
  private overload: { timer: NodeJS.Timeout; since: number; refused: number; reported: number } | undefined;

  constructor(readonly max: number, ns: string, private readonly logger: Logger) {
    // The answers do not depend on the request: built once.
    const e = errors.overloaded(OVERLOAD_RETRY_AFTER_S);
    this.refusals = {
      soap11: { status: statusFor(e, 'soap11'), type: SOAP_CONTENT_TYPES['1.1'], body: soapFault(e, '1.1', ns) },
      soap12: { status: statusFor(e, 'soap12'), type: SOAP_CONTENT_TYPES['1.2'], body: soapFault(e, '1.2', ns) },
      http: { status: statusFor(e, 'http'), type: XML_TYPE, body: serviceErrorDocument(e, ns) },
    };
    this.headers = e.headers;
  }

  /** `handler` (SOAP on an endpoint path) behind the bound; a refusal is a fault of the request's SOAP version. */
  soap(handler: Handler): Handler {
    return (req, res) => {
      const release = this.admit(res);
      if (release) return settled(handler(req, res), release);
      const version = soapVersionOf(parseContentType(req.headers['content-type']));
      const binding = version === '1.1' ? 'soap11' : version === '1.2' ? 'soap12' : undefined;
      if (binding) res.locals.binding = binding;
      this.refuse(res, binding ?? 'http');
    };
  }

  /** `handler` (HTTP GET/POST on `<path>/<Operation>`) behind the bound. */
  http(endpoint: Endpoint, handler: OperationHandler): OperationHandler {
    return (req, res, operation) => {
      const release = this.admit(res);
      if (release) return settled(handler(req, res, operation), release);
      res.locals.binding = req.method === 'GET' ? 'http-get' : req.method === 'POST' ? 'http-post' : 'other';
      res.locals.operation = findOperation(endpoint.name, operation)?.name;
      this.refuse(res, 'http');
    };
  }

  /** Stops the overload report timer. */
  stop(): void {
    if (this.overload) clearInterval(this.overload.timer);
    this.overload = undefined;
  }

  /** Counts the call in, or undefined beyond the bound; the function returned counts it out (once). */
  private admit(res: Res): (() => void) | undefined {
    if (this.inFlight >= this.max) return undefined;
    this.inFlight++;
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      this.inFlight--;
      res.off('close', release);
    };
    res.once('close', release);
    return release;
  }

  private refuse(res: Res, binding: Binding): void {
    this.refused++;
    this.noteOverload();
    res.locals.outcome = 'ServiceUnavailable';
    const r = this.refusals[binding];
    sendBody(res, r.status, r.type, r.body, this.headers);
  }

  /**
   * Logged once when refusals start, then at most every OVERLOAD_LOG_MS while they go on, and once
   * when a period passes without one: never a line per refused call at warn.
   */
  private noteOverload(): void {
    if (this.overload) {
      this.overload.refused++;
      return;
    }
    this.logger.warn({ maxInFlight: this.max }, 'overloaded: refusing operation calls beyond SVAPI_MAX_IN_FLIGHT');
    const overload = { since: Date.now(), refused: 1, reported: 0, timer: setInterval(() => {
      const recent = overload.refused - overload.reported;
      overload.reported = overload.refused;
      if (recent > 0) {
        this.logger.warn({ maxInFlight: this.max, refused: recent }, 'still overloaded');
        return;
      }
      this.logger.info({ refused: overload.refused, seconds: Math.round((Date.now() - overload.since) / 1000) }, 'no longer overloaded');
      this.stop();
    }, OVERLOAD_LOG_MS) };
    overload.timer.unref();
    this.overload = overload;
  }
}

function settled(result: void | Promise<void>, then: () => void): void | Promise<void> {
  if (!result) return then();
  return result.finally(then);
}
