// JSON, as ASMX's ScriptService served it to ASP.NET AJAX pages (CONTRACT §3): POST
// `<path>/<Operation>` with an `application/json` object of parameters, the answer `{"d": ...}`.

import { errors, statusFor, type ServiceError } from '../../errors';
import type { Operation } from '../../operations/catalog';
import type { ParamType, RawParams } from '../../operations/params';
import { decodeBody, readBody } from '../../http/body';
import { sendBody, type Res } from '../../http/exchange';
import type { BindingModule, Call, EndpointBinding } from '../../pipeline/binding';
import { pathOperation } from '../../pipeline/path-operation';
import type { ServiceContext } from '../../pipeline/service-context';
import type { Endpoint } from '../../wsdl/endpoints';
import { readJsonParams } from './read';
import { JsonRecordSerializer } from './records';

const NAME = 'json';
export const JSON_TYPE = 'application/json; charset=utf-8';

export const jsonBinding: BindingModule = {
  names: [NAME],
  routes: [{ method: 'POST', target: 'operation', accepts: (essence) => essence === 'application/json' }],
  create: (endpoint, ctx) => createJsonBinding(endpoint, ctx),
};

function createJsonBinding(endpoint: Endpoint, ctx: ServiceContext): EndpointBinding {
  const read = readBody(ctx.config.SVAPI_MAX_BODY);
  const serializer = new JsonRecordSerializer();
  return {
    nameOf: () => NAME,
    async read(req, res, operation): Promise<Call> {
      const op = pathOperation(endpoint, operation, res);
      const { values, repeated } = readJsonParams(decodeBody(await read(req, res), res.locals.contentType?.charset));
      return { op, name: NAME, repeated, ...texts(op, values) };
    },
    render: ({ op }, result) => serializer.answer(op.record, op.list, result),
    contentType: () => JSON_TYPE,
    writeError: (res, e) => sendJsonError(res, e),
  };
}

/**
 * JSON values as the parameter texts every binding delivers, typed as ASP.NET's
 * JavaScriptSerializer converts them: an int takes a JSON number or a numeric string, a string
 * takes a JSON string or number (its text); null is absent. Anything else (true, an object, an
 * array, a fraction for an int) is refused after the credentials; a wrongly typed DevID or DevKey
 * is a credential that is not accepted.
 */
function texts(op: Operation, values: Record<string, unknown>): { params: RawParams; refused?: ServiceError } {
  const params: RawParams = Object.create(null);
  let refused: ServiceError | undefined;
  const specs: { name: string; type: ParamType }[] = [{ name: 'DevID', type: 'int' }, { name: 'DevKey', type: 'string' }, ...op.params];
  for (const spec of specs) {
    const value = values[spec.name];
    if (value === undefined || value === null) continue;
    const text = spec.type === 'int'
      ? (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'string' ? String(value) : undefined
      : typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
    if (text !== undefined) params[spec.name] = text;
    else if (spec.name !== 'DevID' && spec.name !== 'DevKey') refused ??= errors.invalid(spec.name, spec.type === 'int' ? 'must be a 32-bit integer' : 'must be a string');
  }
  return { params, refused };
}

function sendJsonError(res: Res, e: ServiceError): void {
  res.locals.outcome = e.code;
  const parameter = e.parameter === undefined ? '' : `,"Parameter":${JSON.stringify(e.parameter)}`;
  const body = `{"Message":${JSON.stringify(e.message)},"ExceptionType":"ServiceError","Code":${JSON.stringify(e.code)}${parameter}}`;
  sendBody(res, statusFor(e, 'http'), JSON_TYPE, body, e.headers);
}
