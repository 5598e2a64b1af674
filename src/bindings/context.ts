import type { CredentialChecker } from '../auth/credentials';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { InvokeContext } from '../operations/invoke';
import type { RecordSerializer } from '../xml/records';
import type { WsdlDocuments } from './wsdl-documents';

/** What every binding adapter needs: the operations' context plus the XML pieces. */
export interface BindingContext extends InvokeContext {
  config: Config;
  credentials: CredentialChecker;
  serializer: RecordSerializer;
  wsdl: WsdlDocuments;
  logger: Logger;
}
