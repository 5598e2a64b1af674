import { faultCodeFor, type ServiceError } from '../errors';
import { escapeAttr, escapeText } from './escape';
import type { SoapVersion } from './vocabulary';
import { SOAP11_NS, SOAP12_NS, XML_DECL } from './vocabulary';

/** `<ServiceError>` in the service namespace: the HTTP error body and the SOAP fault detail. */
function serviceErrorElement(e: ServiceError, ns: string): string {
  const parameter = e.parameter !== undefined ? `<Parameter>${escapeText(e.parameter)}</Parameter>` : '';
  return `<ServiceError xmlns="${escapeAttr(ns)}"><Code>${e.code}</Code><Message>${escapeText(e.message)}</Message>${parameter}</ServiceError>`;
}

export function serviceErrorDocument(e: ServiceError, ns: string): string {
  return `${XML_DECL}${serviceErrorElement(e, ns)}\n`;
}

/** A complete fault envelope of the given SOAP version (CONTRACT §7). */
export function soapFault(e: ServiceError, version: SoapVersion, ns: string): string {
  const detail = serviceErrorElement(e, ns);
  const message = escapeText(e.message);
  if (version === '1.1') {
    return `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP11_NS}"><soap:Body><soap:Fault>`
      + `<faultcode>soap:${faultCodeFor(e, 'soap11')}</faultcode><faultstring>${message}</faultstring>`
      + `<detail>${detail}</detail></soap:Fault></soap:Body></soap:Envelope>\n`;
  }
  return `${XML_DECL}<env:Envelope xmlns:env="${SOAP12_NS}"><env:Body><env:Fault>`
    + `<env:Code><env:Value>env:${faultCodeFor(e, 'soap12')}</env:Value></env:Code>`
    + `<env:Reason><env:Text xml:lang="en">${message}</env:Text></env:Reason>`
    + `<env:Detail>${detail}</env:Detail></env:Fault></env:Body></env:Envelope>\n`;
}
