import { errors, type ServiceError } from '../../errors';
import type { RawParams } from '../../operations/params';
import type { Operation } from '../../operations/catalog';
import { decodeBody, readBody } from '../../http/body';
import { queryOf, type Req, type Res } from '../../http/exchange';
import { bodyOf } from '../../http/answer';
import { RecordSerializer } from '../../xml/records';
import { sendErrorDocument } from '../../http/error-document';
import { XML_TYPE } from '../../xml/vocabulary';
import type { Call, EndpointBinding } from '../../pipeline/binding';
import { pathOperation } from '../../pipeline/path-operation';
import type { ServiceContext } from '../../pipeline/service-context';
import type { Endpoint } from '../../wsdl/endpoints';

/**
 * What HTTP GET and HTTP POST share: text parameters from pairs (a query string or a form), a
 * bare XML document as the answer, the `<ServiceError>` document as the error.
 */
export function xmlPairsBinding(
  endpoint: Endpoint,
  ctx: ServiceContext,
  name: string,
  pairsOf: (req: Req, res: Res) => URLSearchParams | Promise<URLSearchParams>,
): EndpointBinding {
  const ns = ctx.config.SVAPI_NAMESPACE;
  const serializer = new RecordSerializer();
  return {
    nameOf: () => name,
    read(req, res, operation) {
      const op = pathOperation(endpoint, operation, res);
      const pairs = pairsOf(req, res);
      return pairs instanceof URLSearchParams ? callOf(op, name, pairs) : pairs.then((p) => callOf(op, name, p));
    },
    render: ({ op }, result) => bodyOf(serializer.httpDocumentParts(op.name, result, ns, [])),
    contentType: () => XML_TYPE,
    writeError: (res: Res, e: ServiceError) => sendErrorDocument(res, e, ns),
  };
}

/** The query string's pairs: HTTP GET's parameters. */
export const queryPairs = (req: Req) => new URLSearchParams(queryOf(req));

/** An `application/x-www-form-urlencoded` body's pairs: HTTP POST's parameters. */
export function formPairs(ctx: ServiceContext): (req: Req, res: Res) => Promise<URLSearchParams> {
  const read = readBody(ctx.config.SVAPI_MAX_BODY);
  return async (req, res) => {
    const type = res.locals.contentType;
    if (type?.essence !== 'application/x-www-form-urlencoded') throw errors.unsupportedMediaType(req.headers['content-type'] ?? '');
    return new URLSearchParams(decodeBody(await read(req, res), type.charset));
  };
}

function callOf(op: Operation, name: string, pairs: URLSearchParams): Call {
  // No prototype: a parameter named `constructor` or `__proto__` is just an unknown name.
  const params: RawParams = Object.create(null);
  const repeated: string[] = [];
  for (const [key, value] of pairs) {
    if (Object.hasOwn(params, key)) repeated.push(key);
    else params[key] = value;
  }
  return { op, name, params, repeated };
}
