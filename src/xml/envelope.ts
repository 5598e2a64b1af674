import { SaxesParser, type SaxesTagNS } from 'saxes';
import { errors, ServiceError } from '../errors';
import type { RawParams } from '../operations/params';

export const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
export const MAX_DEPTH = 32;

export type SoapVersion = '1.1' | '1.2';

export interface SoapRequest {
  operation: string;
  operationNamespace: string;
  /** Parameter texts by local name, qualified or not; attributes ignored; xsi:nil = absent. */
  params: RawParams;
  /** Parameters that appeared more than once. */
  repeated: string[];
}

/**
 * Reads a SOAP request with a streaming parser: no DTD, entity or processing instruction is
 * accepted (SOAP forbids them), nesting is bounded, and the envelope must be of the version the
 * Content-Type announced. Dispatch is by the first child of Body.
 */
export function parseSoapRequest(xml: string, version: SoapVersion): SoapRequest {
  const envNs = version === '1.1' ? SOAP11_NS : SOAP12_NS;
  const parser = new SaxesParser({ xmlns: true });
  const path: SaxesTagNS[] = [];
  let opTag: SaxesTagNS | undefined;
  let param: { name: string; text: string; nil: boolean } | undefined;
  const seen = new Set<string>();
  const params: RawParams = {};
  const repeated: string[] = [];

  const refuse = (why: string) => () => {
    throw errors.badRequest(why);
  };
  parser.on('doctype', refuse('A DOCTYPE is not allowed in a SOAP message.'));
  parser.on('processinginstruction', refuse('Processing instructions are not allowed in a SOAP message.'));
  parser.on('opentag', (tag) => {
    const depth = path.length;
    if (depth >= MAX_DEPTH) throw errors.badRequest(`The message is nested deeper than ${MAX_DEPTH} elements.`);
    path.push(tag);
    if (depth === 0) {
      if (tag.local !== 'Envelope') throw errors.badRequest('The message is not a SOAP Envelope.');
      if (tag.uri !== envNs) throw errors.versionMismatch();
    } else if (depth === 2 && isBody(path[1], envNs) && !opTag) {
      opTag = tag;
    } else if (depth === 3 && path[2] === opTag) {
      param = { name: tag.local, text: '', nil: isNil(tag) };
    }
  });
  const onText = (text: string) => {
    if (param && path.length === 4) param.text += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    path.pop();
    if (param && path.length === 3) {
      if (seen.has(param.name)) repeated.push(param.name);
      else if (!param.nil) params[param.name] = param.text;
      seen.add(param.name);
      param = undefined;
    }
  });

  try {
    parser.write(xml).close();
  } catch (e) {
    if (e instanceof ServiceError) throw e;
    throw errors.badRequest('The request is not well-formed XML.');
  }
  if (!opTag) throw errors.badRequest('The SOAP Body holds no operation element.');
  return { operation: opTag.local, operationNamespace: opTag.uri, params, repeated };
}

const isBody = (tag: SaxesTagNS, envNs: string) => tag.local === 'Body' && tag.uri === envNs;

function isNil(tag: SaxesTagNS): boolean {
  for (const a of Object.values(tag.attributes)) {
    if (a.uri === XSI_NS && a.local === 'nil') return ['true', '1'].includes(a.value.trim());
  }
  return false;
}
