import path from 'node:path';
import { PACKAGE_ROOT } from '../package-root';
import type { EndpointName } from '../operations/catalog';

export interface Endpoint {
  name: EndpointName;
  /** Published path, in the interface's letter case; requests match it case-insensitively. */
  path: string;
  /** wsdl:service name, prefix of the port names. */
  service: string;
  wsdlFile: string;
}

export const WSDL_DIR = path.join(PACKAGE_ROOT, 'wsdl');

export const ENDPOINTS: readonly Endpoint[] = [
  { name: 'weapons', path: '/api/weapons.asmx', service: 'Weapons', wsdlFile: 'weapons.wsdl' },
  { name: 'item', path: '/api/item.asmx', service: 'Item', wsdlFile: 'item.wsdl' },
  { name: 'hunting', path: '/API/hunting.asmx', service: 'Hunting', wsdlFile: 'hunting.wsdl' },
  { name: 'auction', path: '/api/auction.asmx', service: 'Auction', wsdlFile: 'auction.wsdl' },
];

/** The names of an endpoint's SOAP 1.1 and SOAP 1.2 bindings (and ports) in its WSDL. */
export const soapBindingNames = (e: Endpoint) => ({ '1.1': `${e.service}Soap`, '1.2': `${e.service}Soap12` });

export function endpointByPath(pathname: string): Endpoint | undefined {
  const wanted = pathname.replace(/\/+$/, '').toLowerCase();
  return ENDPOINTS.find((e) => e.path.toLowerCase() === wanted);
}
