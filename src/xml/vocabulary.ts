// The fixed names of the XML the service writes and reads: namespaces, the XML declaration and
// the media types of each SOAP version. One home, so the bindings, the help pages and the
// benchmarks cannot drift apart.

/** The SOAP versions the service reads and writes. */
export type SoapVersion = '1.1' | '1.2';

export const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';
/** The envelope namespace of each SOAP version. */
export const SOAP_ENVELOPE_NS: Record<SoapVersion, string> = { '1.1': SOAP11_NS, '1.2': SOAP12_NS };
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
export const XSD_NS = 'http://www.w3.org/2001/XMLSchema';

export const XML_DECL = '<?xml version="1.0" encoding="utf-8"?>';

/** HTTP GET/POST answers, error documents, WSDL and DISCO. */
export const XML_TYPE = 'text/xml; charset=utf-8';
/** The Content-Type of each SOAP version, requests and answers. */
export const SOAP_CONTENT_TYPES: Record<SoapVersion, string> = { '1.1': XML_TYPE, '1.2': 'application/soap+xml; charset=utf-8' };
