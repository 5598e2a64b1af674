import { errors, statusFor, toServiceError, type ServiceError } from '../../errors';
import { findOperation, operationsOf, type Operation } from '../../operations/catalog';
import { invoke, type ParamsRequest, type Rendering } from '../../operations/invoke';
import type { RawParams } from '../../operations/params';
import { parseContentType } from '../../xml/content-type';
import { serviceErrorDocument } from '../../xml/faults';
import { XML_TYPE } from '../../xml/vocabulary';
import { decodeBody, readBody } from '../../xml/body';
import type { BindingContext } from '../context';
import { clientAddress } from '../client-address';
import { queryOf, sendBody, type Res } from '../exchange';
import { logServiceError } from '../request-id';
import type { Endpoint } from '../endpoints';
import type { OperationHandler } from '../router';


/** HTTP GET `<path>/<Operation>?...` and POST with a form: text parameters, a bare XML document. */
export function httpHandler(endpoint: Endpoint, ctx: BindingContext): OperationHandler {
  const read = readBody(ctx.config.SVAPI_MAX_BODY);
  const ns = ctx.config.SVAPI_NAMESPACE;
  const renderings = new Map<Operation, Rendering>(operationsOf(endpoint).map((op) => [op, {
    form: 'http',
    render: (result) => ctx.serializer.httpDocument(op.name, result, ns),
  }]));
  return async (req, res, operation) => {
    res.locals.binding = req.method === 'GET' ? 'http-get' : req.method === 'POST' ? 'http-post' : 'other';
    try {
      if (req.method !== 'GET' && req.method !== 'POST') throw errors.methodNotAllowed(['GET', 'POST']);
      const op = findOperation(endpoint.name, operation);
      if (!op) throw errors.unknownOperation(operation);
      res.locals.operation = op.name;
      let pairs: URLSearchParams;
      if (req.method === 'GET') {
        pairs = new URLSearchParams(queryOf(req));
      } else {
        const type = parseContentType(req.headers['content-type']);
        if (type?.essence !== 'application/x-www-form-urlencoded') throw errors.unsupportedMediaType(req.headers['content-type'] ?? '');
        pairs = new URLSearchParams(decodeBody(await read(req, res), type.charset));
      }
      const { body, devId } = await invoke(ctx, op, toParamsRequest(pairs), clientAddress(req, ctx.config.SVAPI_TRUST_PROXY), renderings.get(op)!);
      res.locals.devId = devId;
      sendBody(res, 200, XML_TYPE, body);
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

export function sendHttpError(res: Res, e: ServiceError, ns: string, ctx?: BindingContext) {
  logServiceError(res, e, 'http', ctx?.logger);
  res.locals.outcome = e.code;
  sendBody(res, statusFor(e, 'http'), XML_TYPE, serviceErrorDocument(e, ns), e.headers);
}
