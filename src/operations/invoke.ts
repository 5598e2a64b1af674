import { errors } from '../errors';
import type { CredentialChecker } from '../auth/credentials';
import type { Body, ResultCache } from '../cache/result-cache';
import type { Operation, OperationContext, OperationResult } from './catalog';
import { decodeParams, parseXsdInt, type Params, type RawParams } from './params';

export interface InvokeContext extends OperationContext {
  credentials: CredentialChecker;
  results: ResultCache;
}

/** Parameter texts as a binding read them (first of each name), and names that came more than once. */
export interface ParamsRequest {
  params: RawParams;
  repeated: readonly string[];
}

/** How a binding writes a result: `form` names the output (binding and version) in cache keys. */
export interface Rendering {
  form: string;
  render(result: OperationResult): string;
}

export interface Invocation {
  devId: number;
  /** The rendered answer (text, or UTF-8 bytes when large). */
  body: Body;
}

/**
 * Runs an operation for any binding: credentials first (CONTRACT §6), then the parameters, then
 * the operation, rendered by the binding. Answers come from the result cache while the data is
 * unchanged; the credential check and the limits apply to every request. Every failure is a
 * ServiceError.
 */
export async function invoke(
  ctx: InvokeContext,
  op: Operation,
  request: ParamsRequest,
  clientAddress: string,
  rendering: Rendering,
): Promise<Invocation> {
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
  const params = decodeParams(op, raw);
  const key = cacheKey(rendering.form, op, params);
  const body = ctx.results.lookup(key) ?? await ctx.results.get(key, async () => asBody(rendering.render(await op.run(ctx, params))));
  return { devId, body };
}

/**
 * Node sends a string body in one write together with the headers, but a Buffer body in a second
 * chunk (writev); a large string would be encoded again for every request, so it is kept as bytes.
 */
const STRING_BODY_MAX = 16 * 1024;
const asBody = (text: string): Body => (text.length <= STRING_BODY_MAX ? text : Buffer.from(text));

// U+0001 cannot occur in a decoded parameter (decodeParams refuses control characters).
const SEP = '\u0001';

function cacheKey(form: string, op: Operation, params: Params): string {
  let key = form + SEP + op.endpoint + SEP + op.name;
  for (const p of op.params) key += SEP + params[p.name];
  return key;
}
