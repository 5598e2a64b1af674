import type express from 'express';
import type { Response } from 'express';
import { errors, statusFor, toServiceError, type ServiceError } from '../../errors';
import { findOperation } from '../../operations/catalog';
import { invoke, type ParamsRequest } from '../../operations/invoke';
import type { RawParams } from '../../operations/params';
import { parseContentType } from '../../xml/content-type';
import { serviceErrorDocument } from '../../xml/faults';
import { decodeBody, readBody } from '../../xml/body';
import type { BindingContext } from '../context';
import { logServiceError } from '../request-id';
import type { Endpoint } from '../endpoints';

const XML_TYPE = 'text/xml; charset=utf-8';

/** HTTP GET `<path>/<Operation>?...` and POST with a form: text parameters, a bare XML document. */
export function httpHandler(endpoint: Endpoint, ctx: BindingContext): express.RequestHandler {
  const read = readBody(ctx.config.SVAPI_MAX_BODY);
  const ns = ctx.config.SVAPI_NAMESPACE;
  return async (req, res) => {
    res.locals.binding = req.method === 'GET' ? 'http-get' : req.method === 'POST' ? 'http-post' : 'other';
    try {
      if (req.method !== 'GET' && req.method !== 'POST') throw errors.methodNotAllowed(['GET', 'POST']);
      const op = findOperation(endpoint.name, String(req.params.operation));
      if (!op) throw errors.unknownOperation(String(req.params.operation));
      res.locals.operation = op.name;
      let pairs: URLSearchParams;
      if (req.method === 'GET') {
        // Everything after the first `?`: a later `?` is part of a value (`SearchWord=a?b`).
        const q = req.originalUrl.indexOf('?');
        pairs = new URLSearchParams(q < 0 ? '' : req.originalUrl.slice(q + 1));
      } else {
        const type = parseContentType(req.headers['content-type']);
        if (type?.essence !== 'application/x-www-form-urlencoded') throw errors.unsupportedMediaType(req.headers['content-type'] ?? '');
        pairs = new URLSearchParams(decodeBody(await read(req, res), type.charset));
      }
      const { result, devId } = await invoke(ctx, op, toParamsRequest(pairs), req.ip ?? '');
      res.locals.devId = devId;
      res.status(200).type(XML_TYPE).send(ctx.serializer.httpDocument(op.record, op.list, result, ns));
    } catch (e) {
      sendHttpError(res, toServiceError(e), ns, ctx);
    }
  };
}

function toParamsRequest(pairs: URLSearchParams): ParamsRequest {
  // No prototype: a parameter named `constructor` or `__proto__` is just an unknown name.
  const params: RawParams = Object.create(null);
  const repeated: string[] = [];
  for (const [name, value] of pairs) {
    if (Object.hasOwn(params, name)) repeated.push(name);
    else params[name] = value;
  }
  return { params, repeated };
}

export function sendHttpError(res: Response, e: ServiceError, ns: string, ctx?: BindingContext) {
  logServiceError(res, e, 'http', ctx?.logger);
  res.locals.outcome = e.code;
  res.status(statusFor(e, 'http')).set(e.headers).type(XML_TYPE).send(serviceErrorDocument(e, ns));
}
