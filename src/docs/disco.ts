// ASMX's discovery document (`GET <path>?disco`, CONTRACT §2), which Visual Studio's "Add Web
// Reference" reads: a contractRef to the WSDL and a soap element per SOAP binding, in the layout
// and with the namespace prefixes ASMX's XmlSerializer wrote (q1, q2, ... per element).

import { escapeAttr } from '../xml/escape';
import { XML_DECL, XSD_NS, XSI_NS } from '../xml/vocabulary';
import { soapBindingNames, type Endpoint } from '../wsdl/endpoints';

const DISCO_NS = 'http://schemas.xmlsoap.org/disco/';
const DISCO_SCL_NS = 'http://schemas.xmlsoap.org/disco/scl/';
const DISCO_SOAP_NS = 'http://schemas.xmlsoap.org/disco/soap/';

/** The DISCO document of `endpoint`, every URL absolute under `base`. */
export function discoDocument(endpoint: Endpoint, base: string, ns: string): string {
  const address = escapeAttr(base + endpoint.path);
  const namespace = escapeAttr(ns);
  const bindings = Object.values(soapBindingNames(endpoint)).map((name, i) =>
    `  <soap address="${address}" xmlns:q${i + 1}="${namespace}" binding="q${i + 1}:${name}" xmlns="${DISCO_SOAP_NS}" />`);
  return [
    XML_DECL,
    `<discovery xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}" xmlns="${DISCO_NS}">`,
    `  <contractRef ref="${address}?wsdl" docRef="${address}" xmlns="${DISCO_SCL_NS}" />`,
    ...bindings,
    '</discovery>',
  ].join('\n');
}
