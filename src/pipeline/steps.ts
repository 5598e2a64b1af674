// The steps around an operation, each small: authenticate, decode, cache. handle.ts runs them in
// order for every binding.

import { errors } from '../errors';
import type { CredentialChecker } from '../auth/credentials';
import type { ResultCache } from '../cache/result-cache';
import { Answer, type Body } from '../http/answer';
import type { OperationName, OperationParams } from '../generated/records';
import type { Operation } from '../operations/catalog';
import type { Params } from '../operations/params';
import { decodeParams, parseXsdInt } from './decode';
import type { Call } from './binding';

/**
 * Credentials first (CONTRACT §6): missing, repeated, malformed, unknown or wrong DevID/DevKey is
 * AuthenticationFailed, counted against the caller's address. Gives the DevID: at once when the
 * check needs no wait (CredentialChecker.checkNow), else through a promise; may throw either way.
 */
export function authenticate(credentials: CredentialChecker, call: Call, clientAddress: string): number | Promise<number> {
  const { params: raw, repeated } = call;
  const devId = raw.DevID === undefined ? undefined : parseXsdInt(raw.DevID);
  const devKey = raw.DevKey;
  if (devId === undefined || devKey === undefined || devKey === '' || repeated.includes('DevID') || repeated.includes('DevKey')) {
    return credentials.fail(clientAddress).then(() => {
      throw errors.auth();
    });
  }
  if (credentials.checkNow(devId, devKey, clientAddress)) return devId;
  return credentials.check(devId, devKey, clientAddress).then(() => devId);
}

/** The operation's typed parameters. Unknown parameters are ignored, even repeated; a known one given twice is ambiguous. */
export function decode(call: Call): OperationParams[OperationName] {
  if (call.refused) throw call.refused;
  const twice = call.op.params.find((p) => call.repeated.includes(p.name));
  if (twice) throw errors.invalid(twice.name, 'was given more than once');
  return decodeParams(call.op, call.params);
}

/**
 * The answer from the result cache while the data is unchanged, else made by `make` (run and
 * render) and cached under the binding's name, the operation and its parameters.
 */
export function cached(results: ResultCache, name: string, op: Operation, params: Params, make: () => Promise<Body>): Answer | Promise<Answer> {
  const key = cacheKey(name, op, params);
  return results.lookup(key) ?? results.get(key, async () => {
    const version = results.dataVersion;
    return new Answer(await make(), version);
  });
}

// U+0001 cannot occur in a decoded parameter (decodeParams refuses control characters).
const SEP = '\u0001';

function cacheKey(name: string, op: Operation, params: Params): string {
  let key = name + SEP + op.endpoint + SEP + op.name;
  for (const p of op.params) key += SEP + params[p.name];
  return key;
}
