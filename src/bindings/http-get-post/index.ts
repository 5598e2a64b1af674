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
  pairsOf: (req: Req, res: Res) => Pairs | Promise<Pairs>,
): EndpointBinding {
  const ns = ctx.config.SVAPI_NAMESPACE;
  const serializer = new RecordSerializer();
  return {
    nameOf: () => name,
    read(req, res, operation) {
      const op = pathOperation(endpoint, operation, res);
      const pairs = pairsOf(req, res);
      return pairs instanceof Promise ? pairs.then((p) => callOf(op, name, p)) : callOf(op, name, pairs);
    },
    render: ({ op }, result) => bodyOf(serializer.httpDocumentParts(op.name, result, ns, [])),
    contentType: () => XML_TYPE,
    writeError: (res: Res, e: ServiceError) => sendErrorDocument(res, e, ns),
  };
}

/** Name/value pairs of `application/x-www-form-urlencoded` text, in order. */
export type Pairs = Iterable<readonly [string, string]>;

/** The query string's pairs: HTTP GET's parameters. */
export const queryPairs = (req: Req) => textPairs(queryOf(req));

/**
 * The pairs of urlencoded text as URLSearchParams reads them. Text with nothing to decode (no `%`
 * or `+`, as nearly every call's query) is split here: a URLSearchParams and its iterator took
 * about 1.5% of a cached HTTP GET answer's CPU. Splitting is all the WHATWG parser does to such
 * text: one leading `?` dropped (URLSearchParams' constructor drops it), pieces between `&`, empty
 * ones skipped, each cut at its first `=` (none: an empty value). It would also replace a lone
 * surrogate, which neither text given here can hold (a query reaches Node as Latin-1, a form
 * through a fatal TextDecoder).
 */
export function textPairs(text: string): Pairs {
  if (text.includes('%') || text.includes('+')) return new URLSearchParams(text);
  let at = text.charCodeAt(0) === 63 ? 1 : 0;
  const pairs: (readonly [string, string])[] = [];
  while (at <= text.length) {
    let end = text.indexOf('&', at);
    if (end < 0) end = text.length;
    if (end > at) {
      // The `=` is looked for within the piece only: a search to the end of the text for every
      // piece without one would make a long form of bare names quadratic.
      let eq = at;
      while (eq < end && text.charCodeAt(eq) !== 61) eq++;
      pairs.push(eq === end ? [text.slice(at, end), ''] : [text.slice(at, eq), text.slice(eq + 1, end)]);
    }
    at = end + 1;
  }
  return pairs;
}

/** An `application/x-www-form-urlencoded` body's pairs: HTTP POST's parameters. */
export function formPairs(ctx: ServiceContext): (req: Req, res: Res) => Promise<Pairs> {
  const read = readBody(ctx.config.SVAPI_MAX_BODY);
  return async (req, res) => {
    const type = res.locals.contentType;
    if (type?.essence !== 'application/x-www-form-urlencoded') throw errors.unsupportedMediaType(req.headers['content-type'] ?? '');
    return textPairs(decodeBody(await read(req, res), type.charset));
  };
}

function callOf(op: Operation, name: string, pairs: Pairs): Call {
  // No prototype: a parameter named `constructor` or `__proto__` is just an unknown name.
  const params: RawParams = Object.create(null);
  const repeated: string[] = [];
  for (const [key, value] of pairs) {
    if (Object.hasOwn(params, key)) repeated.push(key);
    else params[key] = value;
  }
  return { op, name, params, repeated };
}
