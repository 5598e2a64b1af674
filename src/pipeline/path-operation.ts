import { errors } from '../errors';
import { findOperation, type Operation } from '../operations/catalog';
import type { Res } from '../http/exchange';
import type { Endpoint } from '../wsdl/endpoints';

/**
 * The operation a `<path>/<Operation>` binding was called for, or UnknownOperation. It is put in
 * res.locals before the body is read, so the access log names it even when reading fails.
 */
export function pathOperation(endpoint: Endpoint, operation: string | undefined, res: Res): Operation {
  const op = operation === undefined ? undefined : findOperation(endpoint.name, operation);
  if (!op) throw errors.unknownOperation(operation ?? '');
  res.locals.operation = op.name;
  return op;
}
