import path from 'node:path';
import type { Endpoint } from '../generated/records';
import { PACKAGE_ROOT } from '../package-root';

/**
 * The endpoints, generated from the WSDLs: `path` is published in the interface's letter case
 * (requests match it case-insensitively), `service` is the wsdl:service name, prefix of the port names.
 */
export { ENDPOINTS, type Endpoint } from '../generated/records';

export const WSDL_DIR = path.join(PACKAGE_ROOT, 'wsdl');

/** The names of an endpoint's SOAP 1.1 and SOAP 1.2 bindings (and ports) in its WSDL. */
export const soapBindingNames = (e: Endpoint) => ({ '1.1': `${e.service}Soap`, '1.2': `${e.service}Soap12` });
