// The one shape of a binding (architecture: docs/architecture.md). The pipeline (handle.ts) calls
// these in order for every operation call; the router (router.ts) picks the binding by its routes.

import type { ServiceError } from '../errors';
import type { Endpoint } from '../wsdl/endpoints';
import type { Operation, OperationResult } from '../operations/catalog';
import type { RawParams } from '../operations/params';
import type { Body } from '../http/answer';
import type { Req, Res } from '../http/exchange';
import type { Route } from '../http/router';
import type { ServiceContext } from './service-context';

/** An operation call as a binding read it: the operation and its parameters as text. */
export interface Call {
  op: Operation;
  /** Parameter texts by name (the first of each name). */
  params: RawParams;
  /** Names given more than once. */
  repeated: readonly string[];
  /** The binding's name for this call (logs, metrics, cache keys): `soap11`, `http-get`, ... */
  name: string;
  /**
   * A parameter the binding read but cannot accept (a typed wire format: a JSON object where a
   * string goes): refused when the parameters are decoded, after the credentials (CONTRACT §6).
   */
  refused?: ServiceError;
}

/** A binding serving one endpoint: made once at start-up, then used by every call. */
export interface EndpointBinding {
  /**
   * The name a request goes by, from its headers alone (before its body is read; the Content-Type
   * as the router parsed it is in res.locals.contentType); undefined when not known.
   */
  nameOf(req: Req, res: Res): string | undefined;
  /**
   * Reads the request into a call: at once when it has no body to wait for (HTTP GET), else
   * through a promise; throws or rejects with a ServiceError for anything it refuses. When the
   * body tells the call's name before the call is complete (SOAP: the envelope's version), it sets
   * `res.locals.binding`, so an error from then on is answered under that name.
   */
  read(req: Req, res: Res, operation: string | undefined): Call | Promise<Call>;
  /** The operation's result as the answer's body (cached under the call's name and parameters). */
  render(call: Call, result: OperationResult): Body;
  contentType(call: Call): string;
  /** Writes an error answer; `name` is what nameOf or read found, in res.locals.binding (undefined: not known yet). */
  writeError(res: Res, e: ServiceError, name: string | undefined): void;
}

export interface BindingModule {
  /** Every name the binding's calls go by. */
  names: readonly string[];
  routes: readonly Route[];
  create(endpoint: Endpoint, ctx: ServiceContext): EndpointBinding | Promise<EndpointBinding>;
}
