import * as soap from 'soap';
import { operationsOf } from '../../operations/catalog';
import { escapeAttr } from '../../xml/escape';
import { SOAP_CONTENT_TYPES, SOAP_ENVELOPE_NS, type SoapVersion } from '../../xml/vocabulary';
import { soapBindingNames, type Endpoint } from '../../wsdl/endpoints';
import { WsdlDocuments } from '../../wsdl/documents';

/** node-soap's envelope around one operation's result: the text before and after it. */
export interface EnvelopeTemplate {
  head: string;
  tail: string;
}

type EnvelopeTemplates = Record<SoapVersion, Map<string, EnvelopeTemplate>>;

const MARKER = '<svapi-result-goes-here/>';

/**
 * node-soap writes the namespace into its envelopes unescaped, so templates are made with this one
 * (which needs no escaping) and the configured namespace, escaped, replaces it.
 */
const TEMPLATE_NS = 'urn:svapi:template-namespace';
let templateWsdl: WsdlDocuments | undefined;

/**
 * The success envelope of every operation of `endpoint` in both SOAP versions, exactly as
 * node-soap writes it: at start-up node-soap (serverless, on the endpoint's WSDL; one server per
 * version, the 1.2 one with forceSoap12Headers) answers a canonical request for each operation
 * with a marker as the result, and what surrounds the marker is the template. Requests then get
 * their result inside it, without node-soap parsing a request or building an envelope each time:
 * that per-request cost alone was more than the whole budget of a cached answer.
 */
export async function envelopeTemplates(endpoint: Endpoint, ns: string): Promise<EnvelopeTemplates> {
  const templates: EnvelopeTemplates = { '1.1': new Map(), '1.2': new Map() };
  templateWsdl ??= new WsdlDocuments(TEMPLATE_NS);
  const withNs = (text: string) => text.replaceAll(`"${TEMPLATE_NS}"`, `"${escapeAttr(ns)}"`);
  for (const version of ['1.1', '1.2'] as const) {
    const server = await nodeSoapServer(endpoint, templateWsdl, version === '1.2');
    for (const op of operationsOf(endpoint)) {
      const answer = await server.processRequest(canonicalRequest(version, op.name, TEMPLATE_NS), {
        headers: { 'content-type': SOAP_CONTENT_TYPES[version] },
      });
      const at = answer.body.indexOf(MARKER);
      if (answer.statusCode !== 200 || at < 0) throw new Error(`node-soap did not answer ${op.name} (SOAP ${version}): ${answer.statusCode}`);
      templates[version].set(op.name, { head: withNs(singleSpaced(answer.body.slice(0, at))), tail: `${withNs(answer.body.slice(at + MARKER.length))}\n` });
    }
  }
  return templates;
}

/**
 * node-soap writes two spaces before the namespace declarations of the Envelope's start tag (its
 * `_envelope` adds one before each declaration after one already there): one is kept. The values
 * there (the template namespace and node-soap's own) hold no spaces.
 */
function singleSpaced(head: string): string {
  const end = head.indexOf('>', head.indexOf(':Envelope'));
  return head.slice(0, end).replace(/ {2,}/g, ' ') + head.slice(end);
}

function canonicalRequest(version: SoapVersion, op: string, ns: string): string {
  const envNs = SOAP_ENVELOPE_NS[version];
  return `<e:Envelope xmlns:e="${envNs}"><e:Body><o:${op} xmlns:o="${ns}"/></e:Body></e:Envelope>`;
}

function nodeSoapServer(endpoint: Endpoint, wsdl: WsdlDocuments, soap12: boolean): Promise<soap.Server> {
  const impl: Record<string, soap.ISoapServiceMethod> = {};
  for (const op of operationsOf(endpoint)) impl[op.name] = () => ({ $xml: MARKER });
  const ports = soapBindingNames(endpoint);
  const services = { [endpoint.service]: { [ports['1.1']]: impl, [ports['1.2']]: impl } };
  return new Promise((resolve, reject) => {
    const server: soap.Server = soap.listen(null, {
      path: endpoint.path,
      services,
      xml: wsdl.wsdl(endpoint, 'http://localhost'),
      forceSoap12Headers: soap12,
      suppressStack: true,
      // Deferred: the callback may come before `server` is assigned.
      callback: (err: unknown) => (err ? reject(err) : queueMicrotask(() => resolve(server))),
    } as soap.IServerOptions);
  });
}
