import { CredentialChecker } from '../../src/auth/credentials';
import { createKnex } from '../../src/db/connect';
import { endReadPool } from '../../src/db/read-pool';
import { ServiceError } from '../../src/errors';
import type { TestDatabase } from './db';

/**
 * Whether the service accepts a DevID/DevKey pair: its own credential check, on a connection as the
 * service makes them, with no cache and limits out of the way, so a revocation shows at once. Any
 * other failure than a refused pair throws.
 */
export async function serviceAccepts(db: Pick<TestDatabase, 'url' | 'config' | 'embedded'>, devId: number, devKey: string): Promise<boolean> {
  const knex = createKnex(db.url, 'service', db.config, db.embedded);
  const checker = new CredentialChecker(knex, { SVAPI_KEY_CACHE_MS: 0, SVAPI_RATE_LIMIT: 1_000_000, SVAPI_AUTH_FAIL_LIMIT: 1_000_000 });
  try {
    await checker.check(devId, devKey, '192.0.2.1');
    return true;
  } catch (e) {
    if (e instanceof ServiceError && e.code === 'AuthenticationFailed') return false;
    throw e;
  } finally {
    await endReadPool(knex);
    await knex.destroy();
  }
}
