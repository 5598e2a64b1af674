import { errors } from '../errors';
import type { CredentialChecker } from '../auth/credentials';
import type { Operation, OperationContext } from './catalog';
import { decodeParams, parseXsdInt, type RawParams } from './params';

export interface InvokeContext extends OperationContext {
  credentials: CredentialChecker;
}

/** Parameter texts as a binding read them (first of each name), and names that came more than once. */
export interface ParamsRequest {
  params: RawParams;
  repeated: readonly string[];
}

export interface Invocation {
  devId: number;
  result: unknown;
}

/**
 * Runs an operation for any binding: credentials first (CONTRACT §6), then the parameters,
 * then the operation. Every failure is a ServiceError.
 */
export async function invoke(ctx: InvokeContext, op: Operation, request: ParamsRequest, clientAddress: string): Promise<Invocation> {
  const { params: raw, repeated } = request;
  const devId = raw.DevID === undefined ? undefined : parseXsdInt(raw.DevID);
  const devKey = raw.DevKey;
  if (devId === undefined || devKey === undefined || devKey === '' || repeated.includes('DevID') || repeated.includes('DevKey')) {
    await ctx.credentials.fail(clientAddress);
    throw errors.auth();
  }
  await ctx.credentials.check(devId, devKey, clientAddress);
  // Unknown parameters are ignored, even repeated; a known one given twice is ambiguous.
  const twice = op.params.find((p) => repeated.includes(p.name));
  if (twice) throw errors.invalid(twice.name, 'was given more than once');
  const params = decodeParams(op.params, raw);
  return { devId, result: await op.run(ctx, params) };
}
