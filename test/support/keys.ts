import type { Knex } from 'knex';
import { CredentialChecker } from '../../src/auth/credentials';
import { ServiceError } from '../../src/errors';

/**
 * Whether the service accepts a DevID/DevKey pair: its own credential check, with no cache and
 * limits out of the way, so a revocation shows at once. Any other failure than a refused pair throws.
 */
export async function serviceAccepts(knex: Knex, devId: number, devKey: string): Promise<boolean> {
  const checker = new CredentialChecker(knex, { SVAPI_KEY_CACHE_MS: 0, SVAPI_RATE_LIMIT: 1_000_000, SVAPI_AUTH_FAIL_LIMIT: 1_000_000 });
  try {
    await checker.check(devId, devKey, '192.0.2.1');
    return true;
  } catch (e) {
    if (e instanceof ServiceError && e.code === 'AuthenticationFailed') return false;
    throw e;
  }
}
