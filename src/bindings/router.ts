import type http from 'node:http';
import { ENDPOINTS, type Endpoint } from './endpoints';
import { pathOf, type Req, type Res } from './exchange';

export type Handler = (req: Req, res: Res) => void | Promise<void>;
export type OperationHandler = (req: Req, res: Res, operation: string) => void | Promise<void>;

export interface EndpointHandlers {
  /** POST on the endpoint path: a SOAP message. */
  soap: Handler;
  /** GET or POST on `<path>/<Operation>`: the HTTP bindings. */
  http: OperationHandler;
}

const OPERATION_NAME = /^[A-Za-z]{1,64}$/;

/**
 * The front of the service: operation calls in their plain form (POST on an endpoint path, GET
 * or POST on `<path>/<Operation>`, the path in any letter case) go straight to their handler;
 * everything else (pages, WSDLs, health, metrics, odd paths and methods, errors) goes to the
 * Express app, which answers those and routes the same handlers for the rarer spellings.
 * Operation calls are nearly all of the traffic, and Express's routing cost more per call than
 * the rest of the service did.
 */
export function frontRouter(
  handlers: ReadonlyMap<Endpoint, EndpointHandlers>,
  begin: (req: Req, res: Res) => void,
  fallback: http.RequestListener,
): http.RequestListener {
  const byPath = new Map<string, EndpointHandlers>();
  for (const endpoint of ENDPOINTS) byPath.set(endpoint.path.toLowerCase(), handlers.get(endpoint)!);
  return (req, rawRes) => {
    const res = rawRes as Res;
    res.locals ??= Object.create(null);
    begin(req, res);
    const method = req.method;
    if (method === 'GET' || method === 'POST') {
      const path = pathOf(req);
      const exact = byPath.get(path.toLowerCase());
      if (exact) {
        if (method === 'POST') return void exact.soap(req, res);
      } else {
        const slash = path.lastIndexOf('/');
        const operation = path.slice(slash + 1);
        const owner = slash > 0 && OPERATION_NAME.test(operation) ? byPath.get(path.slice(0, slash).toLowerCase()) : undefined;
        if (owner) return void owner.http(req, res, operation);
      }
    }
    fallback(req, res);
  };
}
