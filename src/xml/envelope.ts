import { SaxesParser, type SaxesTagNS } from 'saxes';
import { errors, ServiceError } from '../errors';
import { SOAP_ENVELOPE_NS, XSI_NS } from './vocabulary';

export const MAX_DEPTH = 32;

export type SoapVersion = '1.1' | '1.2';

export interface SoapRequest {
  operation: string;
  operationNamespace: string;
  /** Parameter texts by local name, qualified or not; attributes ignored; xsi:nil = absent. */
  params: Record<string, string | undefined>;
  /** Parameters that appeared more than once. */
  repeated: string[];
}

/** What one parse collects; the parser's handlers write into the current one. */
interface ParseState {
  envNs: string;
  path: SaxesTagNS[];
  opTag: SaxesTagNS | undefined;
  param: { name: string; text: string; nil: boolean } | undefined;
  seen: Set<string>;
  params: Record<string, string | undefined>;
  repeated: string[];
}

type Parser = SaxesParser<{ xmlns: true; position: false }>;

/**
 * Reads SOAP requests with a streaming parser: no DTD, entity or processing instruction is
 * accepted (SOAP forbids them), nesting is bounded, and the envelope must be of the version the
 * Content-Type announced. Dispatch is by the first child of Body.
 *
 * One parser, made once and reused (the SOAP binding owns a reader): a parse is synchronous, so it
 * never serves two requests at once, and making a parser (with its handlers) was a visible share
 * of a SOAP request's cost. After an error its state is unknown, so the next parse makes a new one.
 */
export class SoapEnvelopeReader {
  private state: ParseState | undefined;
  private reusable: Parser | undefined;

  read(xml: string, version: SoapVersion): SoapRequest {
    const s: ParseState = {
      envNs: SOAP_ENVELOPE_NS[version],
      path: [], opTag: undefined, param: undefined, seen: new Set(), params: {}, repeated: [],
    };
    const parser = this.reusable ?? this.newParser();
    this.reusable = undefined;
    this.state = s;
    try {
      parser.write(xml).close();
      this.reusable = parser;
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      throw errors.badRequest('The request is not well-formed XML.');
    } finally {
      this.state = undefined;
    }
    if (!s.opTag) throw errors.badRequest('The SOAP Body holds no operation element.');
    return { operation: s.opTag.local, operationNamespace: s.opTag.uri, params: s.params, repeated: s.repeated };
  }

  private newParser(): Parser {
    const parser: Parser = new SaxesParser({ xmlns: true, position: false });
    const refuse = (why: string) => () => {
      throw errors.badRequest(why);
    };
    parser.on('doctype', refuse('A DOCTYPE is not allowed in a SOAP message.'));
    parser.on('processinginstruction', refuse('Processing instructions are not allowed in a SOAP message.'));
    parser.on('opentag', (tag) => {
      const s = this.state!;
      const depth = s.path.length;
      if (depth >= MAX_DEPTH) throw errors.badRequest(`The message is nested deeper than ${MAX_DEPTH} elements.`);
      s.path.push(tag);
      if (depth === 0) {
        if (tag.local !== 'Envelope') throw errors.badRequest('The message is not a SOAP Envelope.');
        if (tag.uri !== s.envNs) throw errors.versionMismatch();
      } else if (depth === 2 && isBody(s.path[1], s.envNs) && !s.opTag) {
        s.opTag = tag;
      } else if (depth === 3 && s.path[2] === s.opTag) {
        s.param = { name: tag.local, text: '', nil: isNil(tag) };
      }
    });
    const onText = (text: string) => {
      const s = this.state!;
      if (s.param && s.path.length === 4) s.param.text += text;
    };
    parser.on('text', onText);
    parser.on('cdata', onText);
    parser.on('closetag', () => {
      const s = this.state!;
      s.path.pop();
      if (s.param && s.path.length === 3) {
        if (s.seen.has(s.param.name)) s.repeated.push(s.param.name);
        else if (!s.param.nil) s.params[s.param.name] = s.param.text;
        s.seen.add(s.param.name);
        s.param = undefined;
      }
    });
    return parser;
  }
}

const isBody = (tag: SaxesTagNS, envNs: string) => tag.local === 'Body' && tag.uri === envNs;

function isNil(tag: SaxesTagNS): boolean {
  for (const a of Object.values(tag.attributes)) {
    if (a.uri === XSI_NS && a.local === 'nil') return ['true', '1'].includes(a.value.trim());
  }
  return false;
}
