import type http from 'node:http';
import { errors, toServiceError } from '../errors';
import { parseContentType } from '../http/content-type';
import { pathOf, type Req, type Res } from '../http/exchange';
import type { Endpoint } from '../bindings/endpoints';
import type { Route, Target } from './binding';
import type { CallHandler } from './handle';
import { sendErrorDocument } from './error-document';
import { logServiceError } from './log-error';

/** A binding's route on one endpoint, with the pipeline that serves it. */
export interface RoutedCall {
  route: Route;
  handle: CallHandler;
}

interface EndpointRoutes {
  endpoint: Endpoint;
  /** By target and method, in registry order: the first that accepts the media type serves the call. */
  calls: Record<Target, Record<'GET' | 'POST', RoutedCall[]>>;
}

/**
 * The one router of the service. Every path under an endpoint is resolved here: `<path>` and
 * `<path>/<Operation>` (the endpoint path in any letter case, one trailing slash allowed, the
 * operation name exact after percent-decoding) go to the binding whose route takes the method and
 * media type, through the pipeline; a wrong method is 405 and a media type no binding takes is
 * refused by the route's first binding. GET (and HEAD) on `<path>` and everything outside the
 * endpoints (`/`, health, metrics, unknown paths) go to `pages`.
 */
export function router(
  endpoints: ReadonlyMap<Endpoint, RoutedCall[]>,
  begin: (req: Req, res: Res) => void,
  pages: http.RequestListener,
  ns: string,
): http.RequestListener {
  const byPath = new Map<string, EndpointRoutes>();
  for (const [endpoint, calls] of endpoints) {
    const table: EndpointRoutes['calls'] = { endpoint: { GET: [], POST: [] }, operation: { GET: [], POST: [] } };
    for (const c of calls) table[c.route.target][c.route.method].push(c);
    byPath.set(endpoint.path.toLowerCase(), { endpoint, calls: table });
  }

  return (req, rawRes) => {
    const res = rawRes as Res;
    res.locals ??= Object.create(null);
    begin(req, res);
    let path = pathOf(req);
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    let target: Target = 'endpoint';
    let operation: string | undefined;
    let owner = byPath.get(path.toLowerCase());
    if (!owner) {
      const slash = path.lastIndexOf('/');
      owner = slash > 0 ? byPath.get(path.slice(0, slash).toLowerCase()) : undefined;
      if (!owner) return pages(req, res);
      target = 'operation';
      operation = path.slice(slash + 1);
      if (operation.includes('%')) {
        try {
          operation = decodeURIComponent(operation);
        } catch (e) {
          return refuseUnreadable(res, e, ns);
        }
      }
    }
    const method = req.method;
    if (method !== 'GET' && method !== 'POST') {
      if (target === 'endpoint' && method === 'HEAD') return pages(req, res);
      res.locals.binding = 'other';
      return sendErrorDocument(res, errors.methodNotAllowed(['GET', 'POST']), ns);
    }
    const routes = owner.calls[target][method];
    if (routes.length === 0) return pages(req, res);
    const type = (res.locals.contentType = parseContentType(req.headers['content-type']));
    const chosen = routes.length === 1 ? routes[0] : pick(routes, type?.essence ?? '');
    void chosen.handle(req, res, operation);
  };
}

function pick(routes: RoutedCall[], essence: string): RoutedCall {
  return routes.find((r) => !r.route.accepts || r.route.accepts(essence)) ?? routes[0];
}

/** A path that does not percent-decode: BadRequest, logged (at warn) with what failed. */
function refuseUnreadable(res: Res, cause: unknown, ns: string): void {
  const e = toServiceError(Object.assign(new Error('path does not decode', { cause }), { status: 400 }));
  logServiceError(res, e, 'http');
  sendErrorDocument(res, e, ns);
}
