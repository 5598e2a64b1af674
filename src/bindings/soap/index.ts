import { errors, statusFor, toServiceError, ServiceError } from '../../errors';
import { findOperation, operationsOf, type Operation } from '../../operations/catalog';
import { invoke, type Rendering } from '../../operations/invoke';
import { parseContentType, type ContentType } from '../../xml/content-type';
import { parseSoapRequest, type SoapVersion } from '../../xml/envelope';
import { soapFault } from '../../xml/faults';
import { sendHttpError } from '../http';
import { decodeBody, readBody } from '../../xml/body';
import type { BindingContext } from '../context';
import { logServiceError } from '../request-id';
import type { Endpoint } from '../endpoints';
import { envelopeTemplates } from './envelopes';
import { SOAP_CONTENT_TYPES } from '../../xml/vocabulary';
import { acceptedActions } from './action';
import { clientAddress } from '../client-address';
import { sendBody, type Req, type Res } from '../exchange';
import type { Handler } from '../router';

/**
 * SOAP 1.1 and 1.2 on one path. Everything a client sends is checked here (media type, size, XML
 * hazards, envelope version, operation, action, credentials, parameters) and every error becomes
 * our own fault, so none of node-soap's lenient parsing or fault handling reaches a client. A
 * result goes out in node-soap's own envelope for that operation and version (see envelopes.ts).
 */
export async function soapHandler(endpoint: Endpoint, ctx: BindingContext): Promise<Handler> {
  const ns = ctx.config.SVAPI_NAMESPACE;
  const templates = await envelopeTemplates(endpoint, ns);
  const read = readBody(ctx.config.SVAPI_MAX_BODY);
  // Each operation's result in node-soap's envelope for each version.
  const rendering = (version: SoapVersion) => new Map<Operation, Rendering>(operationsOf(endpoint).map((op) => {
    const { head, tail } = templates[version].get(op.name)!;
    return [op, { form: `soap${version}`, render: (result) => head + ctx.serializer.soapResult(op.name, result, ns) + tail }];
  }));
  const renderings = { '1.1': rendering('1.1'), '1.2': rendering('1.2') };
  const actions = new Map(operationsOf(endpoint).map((op) => [op, acceptedActions(ns, op.name)]));

  return async (req, res) => {
    let version: SoapVersion | undefined;
    try {
      const type = parseContentType(req.headers['content-type']);
      version = soapVersionOf(type);
      if (!version) throw errors.unsupportedMediaType(req.headers['content-type'] ?? '');
      res.locals.binding = version === '1.1' ? 'soap11' : 'soap12';
      const xml = decodeBody(await read(req, res), type!.charset);
      const message = parseSoapRequest(xml, version);
      if (message.operationNamespace !== ns) throw errors.foreignNamespace(message.operation, message.operationNamespace, ns);
      const op = findOperation(endpoint.name, message.operation);
      if (!op) throw errors.unknownOperation(message.operation);
      const action = soapAction(req, type!.action);
      if (action && !actions.get(op)!.has(action)) {
        throw errors.badRequest(`The SOAP action ${action} does not name the operation in the Body (${op.name}).`);
      }
      res.locals.operation = op.name;
      const { body, devId } = await invoke(ctx, op, message, clientAddress(req, ctx.config.SVAPI_TRUST_PROXY), renderings[version].get(op)!);
      res.locals.devId = devId;
      sendBody(res, 200, SOAP_CONTENT_TYPES[version], body);
    } catch (e) {
      sendSoapError(res, toServiceError(e), version, ns, ctx);
    }
  };
}

/** The SOAP version a Content-Type names: text/xml is 1.1, application/soap+xml 1.2. */
export function soapVersionOf(type: ContentType | undefined): SoapVersion | undefined {
  return type?.essence === 'text/xml' ? '1.1' : type?.essence === 'application/soap+xml' ? '1.2' : undefined;
}

function soapAction(req: Req, contentTypeAction: string | undefined): string | undefined {
  const header = req.headers.soapaction;
  const raw = (Array.isArray(header) ? header[0] : header) ?? contentTypeAction;
  const value = raw?.trim().replace(/^"(.*)"$/, '$1');
  return value || undefined;
}

export function sendSoapError(res: Res, e: ServiceError, version: SoapVersion | undefined, ns: string, ctx?: BindingContext) {
  // Until the Content-Type names a SOAP version, the answer is the plain <ServiceError> document.
  if (!version) return sendHttpError(res, e, ns, ctx);
  logServiceError(res, e, 'soap', ctx?.logger);
  res.locals.outcome = e.code;
  sendBody(res, statusFor(e, version === '1.1' ? 'soap11' : 'soap12'), SOAP_CONTENT_TYPES[version], soapFault(e, version, ns), e.headers);
}
