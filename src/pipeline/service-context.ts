import type { CredentialChecker } from '../auth/credentials';
import type { ResultCache } from '../cache/result-cache';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { OperationContext } from '../operations/catalog';
import type { WsdlDocuments } from '../wsdl/documents';
import type { InFlightLimit } from './in-flight';
import type { DbQueue } from './db-queue';
import type { EarlyRetries } from './early-retries';
import type { Arrivals } from './arrivals';
import type { TurnSlices } from './turn-slices';

/** What the pipeline's steps and the bindings share for the life of the service. */
export interface ServiceContext extends OperationContext {
  config: Config;
  logger: Logger;
  credentials: CredentialChecker;
  results: ResultCache;
  limit: InFlightLimit;
  /** Where operation calls wait for a database connection. */
  dbQueue: DbQueue;
  /** Where a call waits that comes on a connection before its last refusal's Retry-After has passed. */
  earlyRetries: EarlyRetries;
  /** When a call may have arrived, its wait in its socket counted: its deadlines count from then. */
  arrivals: Arrivals;
  /** Where answers made from the database are rendered, a slice of each turn at a time. */
  renderSlices: TurnSlices;
  /**
   * Where operation calls are taken up (admission on), a slice of each turn at a time: after an
   * early retry's wait, with the answer cache off, or while calls wait for a database connection.
   */
  callSlices: TurnSlices;
  wsdl: WsdlDocuments;
}
