import type { Knex } from 'knex';
import { errors } from '../errors';
import { checkCredentials } from './keys';

/** Checks DevID/DevKey pairs for the bindings; throws AuthenticationFailed. */
export class CredentialChecker {
  constructor(private readonly knex: Knex) {}

  async check(devId: number, devKey: string, clientAddress: string): Promise<void> {
    if (!(await checkCredentials(this.knex, devId, devKey))) {
      await this.fail(clientAddress);
      throw errors.auth();
    }
  }

  /** Records a failed attempt from an address (throttling comes with the limits). */
  async fail(_clientAddress: string): Promise<void> {}
}
