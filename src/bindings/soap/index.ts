import { errors, statusFor, type ServiceError } from '../../errors';
import { findOperation, operationsOf, type Operation } from '../../operations/catalog';
import type { ContentType } from '../../http/content-type';
import { SoapEnvelopeReader, type SoapVersion } from '../../xml/envelope';
import { soapFault } from '../../xml/faults';
import { RecordSerializer } from '../../xml/records';
import { decodeBody, readBody } from '../../http/body';
import { bodyOf } from '../../http/answer';
import { sendBody, type Req, type Res } from '../../http/exchange';
import { sendErrorDocument } from '../../http/error-document';
import type { BindingModule, Call, EndpointBinding } from '../../pipeline/binding';
import type { ServiceContext } from '../../pipeline/service-context';
import type { Endpoint } from '../../wsdl/endpoints';
import { envelopeTemplates, type EnvelopeTemplate } from './envelopes';
import { SOAP_CONTENT_TYPES } from '../../xml/vocabulary';
import { acceptedActions } from '../../xml/soap-action';

const NAMES = { '1.1': 'soap11', '1.2': 'soap12' } as const;
const VERSION_OF: Record<string, SoapVersion> = { soap11: '1.1', soap12: '1.2' };
/**
 * The envelopes each Content-Type takes. As ASMX did, `text/xml` takes either version and the
 * envelope's namespace decides (a SOAP 1.2 envelope sent as text/xml is answered as SOAP 1.2);
 * `application/soap+xml` takes SOAP 1.2 only (a 1.1 envelope is VersionMismatch).
 */
const ENVELOPES: Record<SoapVersion, readonly SoapVersion[]> = { '1.1': ['1.1', '1.2'], '1.2': ['1.2'] };

/**
 * SOAP 1.1 and 1.2: one module, because they share the one route (POST on the endpoint path) and
 * only the Content-Type and the envelope tell them apart; the request's version names the call
 * (`soap11`, `soap12`): the Content-Type's until the envelope's namespace is read, then the
 * envelope's (see ENVELOPES). Everything a client sends is checked here (media type, size, XML hazards, envelope
 * version, operation, action) and every error becomes our own fault, so none of node-soap's
 * lenient parsing or fault handling reaches a client. A result goes out in node-soap's own
 * envelope for that operation and version (see envelopes.ts).
 */
export const soapBinding: BindingModule = {
  names: ['soap11', 'soap12'],
  routes: [{ method: 'POST', target: 'endpoint' }],
  create: (endpoint, ctx) => createSoapBinding(endpoint, ctx),
};

interface SoapCall extends Call {
  template: EnvelopeTemplate;
  version: SoapVersion;
}

async function createSoapBinding(endpoint: Endpoint, ctx: ServiceContext): Promise<EndpointBinding> {
  const ns = ctx.config.SVAPI_NAMESPACE;
  const templates = await envelopeTemplates(endpoint, ns);
  const read = readBody(ctx.config.SVAPI_MAX_BODY);
  const reader = new SoapEnvelopeReader();
  const actions = new Map<Operation, ReadonlySet<string>>(operationsOf(endpoint).map((op) => [op, acceptedActions(ns, op.name)]));
  const serializer = new RecordSerializer();

  return {
    nameOf: (_req, res) => {
      const version = soapVersionOf(res.locals.contentType);
      return version && NAMES[version];
    },
    async read(req, res): Promise<SoapCall> {
      const type = res.locals.contentType;
      const announced = soapVersionOf(type);
      if (!announced) throw errors.unsupportedMediaType(req.headers['content-type'] ?? '');
      const xml = decodeBody(await read(req, res), type!.charset);
      // From the envelope's start tag on, the call is of its version: so is any fault refusing it.
      const message = reader.read(xml, ENVELOPES[announced], (version) => {
        res.locals.binding = NAMES[version];
      });
      const { version } = message;
      if (message.operationNamespace !== ns) throw errors.foreignNamespace(message.operation, message.operationNamespace, ns);
      const op = findOperation(endpoint.name, message.operation);
      if (!op) throw errors.unknownOperation(message.operation);
      const action = soapAction(req, type!.action);
      if (action && !actions.get(op)!.has(action)) {
        throw errors.badRequest(`The SOAP action ${action} does not name the operation in the Body (${op.name}).`);
      }
      return { op, params: message.params, repeated: message.repeated, name: NAMES[version], version, template: templates[version].get(op.name)! };
    },
    render(call, result) {
      const { op, template } = call as SoapCall;
      const parts = serializer.soapResultParts(op.name, result, ns, [template.head]);
      parts.push(template.tail);
      return bodyOf(parts);
    },
    contentType: (call) => SOAP_CONTENT_TYPES[(call as SoapCall).version],
    writeError: (res, e, name) => sendSoapError(res, e, name === undefined ? undefined : VERSION_OF[name], ns),
  };
}

/** The SOAP version a Content-Type names: text/xml is 1.1, application/soap+xml 1.2. */
function soapVersionOf(type: ContentType | undefined): SoapVersion | undefined {
  return type?.essence === 'text/xml' ? '1.1' : type?.essence === 'application/soap+xml' ? '1.2' : undefined;
}

function soapAction(req: Req, contentTypeAction: string | undefined): string | undefined {
  const header = req.headers.soapaction;
  const raw = (Array.isArray(header) ? header[0] : header) ?? contentTypeAction;
  const trimmed = raw?.trim();
  const value = trimmed && trimmed.length > 1 && trimmed[0] === '"' && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
  return value || undefined;
}

/** A fault of the request's SOAP version; until the Content-Type names one, the plain <ServiceError> document. */
function sendSoapError(res: Res, e: ServiceError, version: SoapVersion | undefined, ns: string) {
  if (!version) return sendErrorDocument(res, e, ns);
  res.locals.outcome = e.code;
  sendBody(res, statusFor(e, NAMES[version]), SOAP_CONTENT_TYPES[version], soapFault(e, version, ns), e.headers);
}
