import { SaxesParser } from 'saxes';
import { errors, ServiceError } from '../errors';
import { readSimpleXml, type XmlAttribute, type XmlEvents } from './simple-xml';
import { SOAP_ENVELOPE_NS, XSI_NS, type SoapVersion } from './vocabulary';

export const MAX_DEPTH = 32;

export type { SoapVersion };

export interface SoapRequest {
  /** The SOAP version of the envelope's namespace. */
  version: SoapVersion;
  operation: string;
  operationNamespace: string;
  /** Parameter texts by local name, qualified or not; attributes ignored; xsi:nil = absent. */
  params: Record<string, string | undefined>;
  /** Parameters that appeared more than once. */
  repeated: string[];
}

/**
 * What one parse collects from either reader's events: the envelope's namespace must be one of
 * the accepted versions' and gives the message its version, nesting is bounded, and the
 * operation is the first child of Body.
 */
class EnvelopeCollector implements XmlEvents {
  private depth = 0;
  /** The open element at depth 1 is the Body. */
  private inBody = false;
  /** The open element at depth 2 is the operation. */
  private inOperation = false;
  private param: { name: string; text: string; nil: boolean } | undefined;
  private readonly seen = new Set<string>();
  operation: { local: string; uri: string } | undefined;
  version: SoapVersion | undefined;
  private envNs = '';
  readonly params: Record<string, string | undefined> = {};
  readonly repeated: string[] = [];

  constructor(private readonly accepted: readonly SoapVersion[], private readonly onVersion?: (version: SoapVersion) => void) {}

  open(local: string, uri: string, attributes: readonly XmlAttribute[]): void {
    const depth = this.depth;
    if (depth >= MAX_DEPTH) throw errors.badRequest(`The message is nested deeper than ${MAX_DEPTH} elements.`);
    this.depth++;
    if (depth === 0) {
      if (local !== 'Envelope') throw errors.badRequest('The message is not a SOAP Envelope.');
      this.version = this.accepted.find((v) => SOAP_ENVELOPE_NS[v] === uri);
      if (!this.version) throw errors.versionMismatch();
      this.envNs = uri;
      this.onVersion?.(this.version);
    } else if (depth === 1) {
      this.inBody = local === 'Body' && uri === this.envNs;
    } else if (depth === 2) {
      this.inOperation = this.inBody && !this.operation;
      if (this.inOperation) this.operation = { local, uri };
    } else if (depth === 3 && this.inOperation) {
      this.param = { name: local, text: '', nil: isNil(attributes) };
    }
  }

  text(text: string): void {
    if (this.param && this.depth === 4) this.param.text += text;
  }

  close(): void {
    this.depth--;
    if (this.param && this.depth === 3) {
      const { name, text, nil } = this.param;
      if (this.seen.has(name)) this.repeated.push(name);
      else if (!nil) this.params[name] = text;
      this.seen.add(name);
      this.param = undefined;
    } else if (this.depth === 2) {
      this.inOperation = false;
    } else if (this.depth === 1) {
      this.inBody = false;
    }
  }
}

type Parser = SaxesParser<{ xmlns: true; position: false }>;

/**
 * Reads SOAP requests: no DTD, entity or processing instruction is accepted (SOAP forbids them),
 * nesting is bounded, and the envelope must be of a version the Content-Type allows (the binding
 * says which); its namespace gives the message's version. Dispatch is by the first child of Body.
 *
 * A plain envelope (nearly every request) is read by readSimpleXml, several times faster than
 * saxes; anything it does not read (comments, CDATA, DTDs, odd names, any error) is parsed again
 * by saxes, which decides as before.
 *
 * One saxes parser, made once and reused (the SOAP binding owns a reader): a parse is synchronous,
 * so it never serves two requests at once, and making a parser (with its handlers) was a visible
 * share of a SOAP request's cost. After an error its state is unknown, so the next parse makes a
 * new one.
 */
export class SoapEnvelopeReader {
  private collector: EnvelopeCollector | undefined;
  private reusable: Parser | undefined;

  /**
   * The message, if its envelope is of an `accepted` version (else VersionMismatch). `onVersion`
   * hears the version as soon as the envelope's start tag is read, before anything else is refused.
   */
  read(xml: string, accepted: readonly SoapVersion[], onVersion?: (version: SoapVersion) => void): SoapRequest {
    let c = new EnvelopeCollector(accepted, onVersion);
    if (!readSimpleXml(xml, c)) {
      c = new EnvelopeCollector(accepted, onVersion);
      this.parse(xml, c);
    }
    if (!c.operation) throw errors.badRequest('The SOAP Body holds no operation element.');
    return { version: c.version!, operation: c.operation.local, operationNamespace: c.operation.uri, params: c.params, repeated: c.repeated };
  }

  /** The full parse, with saxes. */
  private parse(xml: string, c: EnvelopeCollector): void {
    const parser = this.reusable ?? this.newParser();
    this.reusable = undefined;
    this.collector = c;
    try {
      parser.write(xml).close();
      this.reusable = parser;
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      throw errors.badRequest('The request is not well-formed XML.');
    } finally {
      this.collector = undefined;
    }
  }

  private newParser(): Parser {
    const parser: Parser = new SaxesParser({ xmlns: true, position: false });
    const refuse = (why: string) => () => {
      throw errors.badRequest(why);
    };
    parser.on('doctype', refuse('A DOCTYPE is not allowed in a SOAP message.'));
    parser.on('processinginstruction', refuse('Processing instructions are not allowed in a SOAP message.'));
    parser.on('opentag', (tag) => this.collector!.open(tag.local, tag.uri, Object.values(tag.attributes)));
    const onText = (text: string) => this.collector!.text(text);
    parser.on('text', onText);
    parser.on('cdata', onText);
    parser.on('closetag', () => this.collector!.close());
    return parser;
  }
}

/** xsi:nil="true" (or "1"): the first xsi:nil attribute decides. */
function isNil(attributes: readonly XmlAttribute[]): boolean {
  for (const a of attributes) {
    if (a.uri === XSI_NS && a.local === 'nil') return ['true', '1'].includes(a.value.trim());
  }
  return false;
}
