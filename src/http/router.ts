import type http from 'node:http';
import type { Logger } from '../log';
import { errors, toServiceError } from '../errors';
import { parseContentType } from './content-type';
import { newLocals, pathOf, type Req, type Res } from './exchange';
import { sendErrorDocument } from './error-document';
import { logServiceError } from './log-error';

/** Where a call goes: `<path>` itself, or `<path>/<Operation>`. */
export type Target = 'endpoint' | 'operation';

/** A binding's route: the method, the target, and the media types it takes. */
export interface Route {
  method: 'GET' | 'POST';
  target: Target;
  /** Whether the binding takes a request with this media type (Content-Type essence, '' if none); absent: every one. */
  accepts?: (essence: string) => boolean;
}

/** What serves a page: a GET (and a HEAD, whose body Node leaves out) on a fixed path. */
export type PageHandler = (req: Req, res: Res) => void | Promise<void>;

/** A binding's route on one endpoint, with the pipeline that serves it (`operation`: the name in the path, if any). */
export interface RoutedCall {
  route: Route;
  handle: (req: Req, res: Res, operation: string | undefined) => unknown;
}

/** An endpoint as the router serves it: its help pages (GET and HEAD on `<path>`) and its operation calls. */
export interface RoutedEndpoint {
  path: string;
  page: PageHandler;
  calls: readonly RoutedCall[];
}

/** Everything the service serves. */
interface Site {
  /** Pages on fixed paths outside the endpoints (`/`, health, metrics): GET and HEAD. */
  pages: ReadonlyMap<string, PageHandler>;
  endpoints: readonly RoutedEndpoint[];
  /** The namespace of the `<ServiceError>` documents (404, 405, a path that does not decode, a failed page). */
  ns: string;
  /** Where a failed page is logged when the request has no logger of its own. */
  logger: Logger;
}

interface EndpointRoutes {
  page: PageHandler;
  /** By target and method, in registry order: the first that accepts the media type serves the call. */
  calls: Record<Target, Record<'GET' | 'POST', RoutedCall[]>>;
}

/**
 * The one router of the service. Paths match in any letter case with one trailing slash allowed;
 * an operation name in `<path>/<Operation>` matches exactly after percent-decoding. `<path>` and
 * `<path>/<Operation>` go to the binding whose route takes the method and media type, through the
 * pipeline; a wrong method is 405 and a media type no binding takes is refused by the route's first
 * binding. GET and HEAD on `<path>` that no binding takes are the endpoint's pages; GET and HEAD on
 * a page's path are that page; anything else is 404. A page that fails is answered with the
 * `<ServiceError>` document of its error.
 */
export function router(site: Site, begin: (req: Req, res: Res) => void): http.RequestListener {
  const { ns, logger } = site;
  const pages = new Map<string, PageHandler>();
  for (const [path, page] of site.pages) pages.set(path.toLowerCase(), page);
  const byPath = new Map<string, EndpointRoutes>();
  for (const { path, page, calls } of site.endpoints) {
    const table: EndpointRoutes['calls'] = { endpoint: { GET: [], POST: [] }, operation: { GET: [], POST: [] } };
    for (const c of calls) table[c.route.target][c.route.method].push(c);
    byPath.set(path.toLowerCase(), { page, calls: table });
  }

  const servePage = (page: PageHandler, req: Req, res: Res) => {
    try {
      const served = page(req, res);
      if (served instanceof Promise) served.catch((e: unknown) => pageFailed(res, e, ns, logger));
    } catch (e) {
      pageFailed(res, e, ns, logger);
    }
  };

  return (req, rawRes) => {
    const res = rawRes as Res;
    res.locals ??= newLocals();
    begin(req, res);
    let path = pathOf(req);
    // An absolute-form request target (`GET http://host/path`): its path.
    if (path.charCodeAt(0) !== 47 && /^https?:\/\//i.test(path)) path = absolutePath(path);
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const method = req.method;
    const lower = path.toLowerCase();
    let target: Target = 'endpoint';
    let operation: string | undefined;
    let owner = byPath.get(lower);
    if (!owner) {
      const slash = path.lastIndexOf('/');
      owner = slash > 0 ? byPath.get(lower.slice(0, slash)) : undefined;
      if (!owner) {
        const page = method === 'GET' || method === 'HEAD' ? pages.get(lower) : undefined;
        return page ? servePage(page, req, res) : notFound(res, ns);
      }
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
    if (method !== 'GET' && method !== 'POST') {
      if (target === 'endpoint' && method === 'HEAD') return servePage(owner.page, req, res);
      res.locals.binding = 'other';
      return sendErrorDocument(res, errors.methodNotAllowed(['GET', 'POST']), ns);
    }
    const routes = owner.calls[target][method];
    if (routes.length === 0) return target === 'endpoint' && method === 'GET' ? servePage(owner.page, req, res) : notFound(res, ns);
    const type = (res.locals.contentType = parseContentType(req.headers['content-type']));
    const chosen = routes.length === 1 ? routes[0] : pick(routes, type?.essence ?? '');
    chosen.handle(req, res, operation);
  };
}

function pick(routes: RoutedCall[], essence: string): RoutedCall {
  return routes.find((r) => !r.route.accepts || r.route.accepts(essence)) ?? routes[0];
}

function absolutePath(target: string): string {
  try {
    return new URL(target).pathname;
  } catch {
    return target;
  }
}

function notFound(res: Res, ns: string): void {
  sendErrorDocument(res, errors.notFound('This path'), ns);
}

/** A path that does not percent-decode: BadRequest, logged (at warn) with what failed. */
function refuseUnreadable(res: Res, cause: unknown, ns: string): void {
  const e = toServiceError(Object.assign(new Error('path does not decode', { cause }), { status: 400 }));
  logServiceError(res, e, 'http');
  sendErrorDocument(res, e, ns);
}

/** A page that threw: its error's `<ServiceError>` document, logged as a page's. */
function pageFailed(res: Res, err: unknown, ns: string, logger: Logger): void {
  const e = toServiceError(err);
  logServiceError(res, e, 'page', logger);
  if (res.headersSent) res.destroy();
  else sendErrorDocument(res, e, ns);
}
