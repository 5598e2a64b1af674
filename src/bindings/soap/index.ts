import express, { type Request, type Response } from 'express';
import * as soap from 'soap';
import { errors, statusFor, toServiceError, ServiceError } from '../../errors';
import { findOperation, OPERATIONS } from '../../operations/catalog';
import { invoke } from '../../operations/invoke';
import { parseContentType } from '../../xml/content-type';
import { parseSoapRequest, SOAP11_NS, SOAP12_NS, type SoapVersion } from '../../xml/envelope';
import { soapFault } from '../../xml/faults';
import { sendHttpError } from '../http';
import { decodeBody, readBody } from '../../xml/body';
import { escapeAttr } from '../../xml/escape';
import type { BindingContext } from '../context';
import { logServiceError } from '../request-id';
import type { Endpoint } from '../endpoints';

const CONTENT_TYPES: Record<SoapVersion, string> = {
  '1.1': 'text/xml; charset=utf-8',
  '1.2': 'application/soap+xml; charset=utf-8',
};
const RESULT = Symbol('svapi.soapResult');
type WithResult = Request & { [RESULT]?: string };

/**
 * SOAP 1.1 and 1.2 on one path. Everything a client sends is checked here first (media type,
 * size, XML hazards, envelope version, operation, action, credentials, parameters) and every
 * error becomes our own fault; node-soap only wraps a successful result in its envelope, from a
 * canonical request we build, so none of its lenient parsing or fault handling reaches a client.
 */
export async function soapHandler(endpoint: Endpoint, ctx: BindingContext): Promise<express.RequestHandler> {
  const routers = {
    '1.1': await nodeSoapRouter(endpoint, ctx, false),
    '1.2': await nodeSoapRouter(endpoint, ctx, true),
  };
  const read = readBody(ctx.config.SVAPI_MAX_BODY);
  const ns = ctx.config.SVAPI_NAMESPACE;

  return async (req, res) => {
    let version: SoapVersion | undefined;
    try {
      const type = parseContentType(req.headers['content-type']);
      version = type?.essence === 'text/xml' ? '1.1' : type?.essence === 'application/soap+xml' ? '1.2' : undefined;
      if (!version) throw errors.unsupportedMediaType(req.headers['content-type'] ?? '');
      res.locals.binding = version === '1.1' ? 'soap11' : 'soap12';
      const xml = decodeBody(await read(req, res), type!.charset);
      const message = parseSoapRequest(xml, version);
      const op = message.operationNamespace === ns ? findOperation(endpoint.name, message.operation) : undefined;
      if (!op) throw errors.unknownOperation(message.operation);
      const action = soapAction(req, type!.action);
      if (action && action !== `${ns}/${op.name}`) {
        throw errors.badRequest(`The SOAP action ${action} does not name the operation in the Body (${op.name}).`);
      }
      res.locals.operation = op.name;
      const { result, devId } = await invoke(ctx, op, message, req.ip ?? '');
      res.locals.devId = devId;
      (req as WithResult)[RESULT] = ctx.serializer.soapResult(op.name, op.record, op.list, result, ns);
      handOver(routers[version], req, res, version, op.name, ns);
    } catch (e) {
      sendSoapError(res, toServiceError(e), version, ns, ctx);
    }
  };
}

function soapAction(req: Request, contentTypeAction: string | undefined): string | undefined {
  const header = req.headers.soapaction;
  const raw = (Array.isArray(header) ? header[0] : header) ?? contentTypeAction;
  const value = raw?.trim().replace(/^"(.*)"$/, '$1');
  return value || undefined;
}

/** node-soap sees only a canonical request: the operation element, nothing from the client. */
function handOver(router: express.Router, req: Request, res: Response, version: SoapVersion, op: string, ns: string) {
  const envNs = version === '1.1' ? SOAP11_NS : SOAP12_NS;
  req.body = Buffer.from(`<e:Envelope xmlns:e="${envNs}"><e:Body><o:${op} xmlns:o="${escapeAttr(ns)}"/></e:Body></e:Envelope>`);
  req.headers['content-type'] = CONTENT_TYPES[version];
  delete req.headers.soapaction;
  delete req.headers['content-encoding'];
  req.url = '/';
  router(req, res, () => sendSoapError(res, errors.internal(), version, ns));
}

export function sendSoapError(res: Response, e: ServiceError, version: SoapVersion | undefined, ns: string, ctx?: BindingContext) {
  // Until the Content-Type names a SOAP version, the answer is the plain <ServiceError> document.
  if (!version) return sendHttpError(res, e, ns, ctx);
  logServiceError(res, e, 'soap', ctx?.logger);
  res.locals.outcome = e.code;
  res.status(statusFor(e, version === '1.1' ? 'soap11' : 'soap12')).set(e.headers);
  res.type(CONTENT_TYPES[version]).send(soapFault(e, version, ns));
}

async function nodeSoapRouter(endpoint: Endpoint, ctx: BindingContext, soap12: boolean): Promise<express.Router> {
  const impl: Record<string, soap.ISoapServiceMethod> = {};
  for (const op of OPERATIONS.filter((o) => o.endpoint === endpoint.name)) {
    impl[op.name] = (_args, _cb, _headers, req) => ({ $xml: (req as WithResult)[RESULT] ?? '' });
  }
  const services = { [endpoint.service]: { [`${endpoint.service}Soap`]: impl, [`${endpoint.service}Soap12`]: impl } };
  const router = express.Router();
  await new Promise<void>((resolve, reject) => {
    soap.listen(router, {
      path: '/',
      services,
      xml: ctx.wsdl.wsdl(endpoint, 'http://localhost'),
      forceSoap12Headers: soap12,
      enableChunkedEncoding: false,
      suppressStack: true,
      callback: (err: unknown) => (err ? reject(err) : resolve()),
    } as soap.IServerOptions);
  });
  return router;
}
