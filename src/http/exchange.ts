import type http from 'node:http';
import type { Logger } from '../log';
import type { ContentType } from './content-type';
import { endInTurn } from './turn-writes';

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

/**
 * A response's headers as Node's `writeHead` takes them, flat (name, value, ...), begun with its
 * request id (every response carries it: http/request-id.ts). Written in one `writeHead`, such a
 * list is stored as it is, where each `setHeader` validated, lower-cased and kept its header in a
 * table that `writeHead` then walked: a tenth of a cached answer's CPU outside the kernel
 * (docs/performance.md, twenty-ninth pass).
 */
export function headerList(res: Res): string[] {
  const id = res.locals.requestId;
  return id === undefined ? [] : ['X-Request-Id', id];
}

/**
 * Sends a whole answer: the headers of `list`, then `headers`, its type and its length. The
 * headers are stored now, the bytes written at the end of the turn (turn-writes.ts).
 */
export function sendBody(res: Res, status: number, contentType: string, body: string | Buffer, headers?: Readonly<Record<string, string>>, list = headerList(res)): void {
  if (headers) for (const name in headers) list.push(name, headers[name]);
  list.push('Content-Type', contentType, 'Content-Length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.length));
  res.writeHead(status, list);
  endInTurn(res, body);
}
