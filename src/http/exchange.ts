import type http from 'node:http';
import type { Logger } from '../log';
import type { ContentType } from './content-type';

/** What a request carries for the access log, the metrics and error logging (set as it is served). */
interface Locals {
  requestId?: string;
  /** The service's logger (a child with the request id is made only when something is logged). */
  log?: Logger;
  startedAt?: number;
  /** An operation call's earliest possible arrival (pipeline/arrivals.ts), on startedAt's clock: its deadlines count from it. */
  arrivedAt?: number;
  /** The path as received (before anything rewrites req.url). */
  path?: string;
  /** A binding name from the registry, `docs` for pages, else `other`. */
  binding?: string;
  operation?: string;
  /** `OK` is implied by a status below 400; otherwise the ServiceError code. */
  outcome?: string;
  devId?: number;
  /** An operation call's Content-Type, parsed once by the router (undefined: none, or not usable). */
  contentType?: ContentType;
}

/**
 * A request's empty Locals, every field present from the start: one hidden class for every
 * request, where `Object.create(null)` made a dictionary-mode object whose every store and load
 * was a hash-table lookup (docs/performance.md, "eleventh pass").
 */
export function newLocals(): Locals {
  return {
    requestId: undefined, log: undefined, startedAt: undefined, arrivedAt: undefined, path: undefined, binding: undefined,
    operation: undefined, outcome: undefined, devId: undefined, contentType: undefined,
  };
}

/** The request and response of the whole service: plain Node ones, with what the router puts in `locals`. */
export type Req = http.IncomingMessage;
export type Res = http.ServerResponse & { locals: Locals };

/** The path part of a request target (before `?`), as sent. */
export function pathOf(req: Req): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** The query string (everything after the first `?`: a later `?` is part of a value). */
export function queryOf(req: Req): string {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

/** Sends a whole answer with these headers. */
export function sendBody(res: Res, status: number, contentType: string, body: string | Buffer, headers?: Record<string, string>): void {
  res.statusCode = status;
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', contentType);
  res.end(body);
}
