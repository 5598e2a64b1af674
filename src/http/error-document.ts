import { statusFor, type ServiceError } from '../errors';
import { sendBody, type Res } from './exchange';
import { serviceErrorDocument } from '../xml/faults';
import { XML_TYPE } from '../xml/vocabulary';


/**
 * The plain `<ServiceError>` document (CONTRACT §7): the error answer of HTTP GET and POST, and of
 * every request whose binding is not known (an unknown path, method or media type).
 */
export function sendErrorDocument(res: Res, e: ServiceError, ns: string): void {
  res.locals.outcome = e.code;
  sendBody(res, statusFor(e, 'http'), XML_TYPE, serviceErrorDocument(e, ns), e.headers);
}
