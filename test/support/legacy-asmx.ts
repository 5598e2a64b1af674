import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { child, isNil, parseXml, XSI_NS, type XmlElement } from './xml-tree';

// A stand-in for the legacy ASMX service, for `svapi compare`: its WSDLs are what ASMX 2.0
// publishes with its default protocols (test/fixtures/legacy-asmx: SOAP 1.1 and 1.2 only, no
// HttpGet/HttpPost, namespace http://tempuri.org/), and its answers carry the data of an svapi
// instance (`upstream`, started with that namespace) written the way ASMX writes them: indented,
// xsi and xsd declared on the root, the service namespace as the default namespace of the
// response element, `soap12:` for SOAP 1.2, and faults without detail. HTTP GET and POST are
// refused as ASMX refuses a disabled protocol.

export const LEGACY_NS = 'http://tempuri.org/';
const FIXTURES = path.resolve(__dirname, '../fixtures/legacy-asmx');
const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const XSD = 'http://www.w3.org/2001/XMLSchema';
const ENDPOINTS: Record<string, string> = {
  '/api/weapons.asmx': 'weapons', '/api/item.asmx': 'item', '/api/hunting.asmx': 'hunting', '/api/auction.asmx': 'auction',
};

export interface LegacyRequest {
  method: string;
  /** Path and query, the DevKey replaced by `***`. */
  url: string;
  /** The SOAP operation or the path's operation. */
  operation?: string;
  at: number;
}

export interface LegacyAsmx {
  url: string;
  requests: LegacyRequest[];
  close(): Promise<void>;
}

export interface LegacyOptions {
  /** Base URL of the svapi instance whose data the answers carry (SVAPI_NAMESPACE=http://tempuri.org/). */
  upstream: string;
  /** Operations whose calls get no answer at all (the connection is held until close). */
  stall?: readonly string[];
}

export async function startLegacyAsmx(opts: LegacyOptions): Promise<LegacyAsmx> {
  const requests: LegacyRequest[] = [];
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      answer(req, res, body).catch((e: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
      });
    });
  });

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> {
    const url = new URL(req.url!, 'http://legacy');
    const pathName = url.pathname.toLowerCase();
    const endpoint = Object.keys(ENDPOINTS).find((p) => pathName === p || pathName.startsWith(`${p}/`));
    const soapOperation = /<(?:\w+:)?Body[^>]*>\s*<(?:\w+:)?(\w+)/.exec(body)?.[1];
    const operation = endpoint && pathName !== endpoint ? url.pathname.slice(endpoint.length + 1) : soapOperation;
    requests.push({ method: req.method!, url: req.url!.replace(/DevKey=[^&]*/, 'DevKey=***'), operation, at: Date.now() });
    if (!endpoint) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>The resource cannot be found.</body></html>');
    if (req.method === 'GET' && url.searchParams.has('wsdl') && pathName === endpoint) {
      const wsdl = fs.readFileSync(path.join(FIXTURES, `${ENDPOINTS[endpoint]}.wsdl`), 'utf8').replaceAll('http://localhost', `http://${req.headers.host}`);
      return void res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' }).end(wsdl);
    }
    if (operation && opts.stall?.includes(operation)) {
      held.add(res);
      return;
    }
    if (pathName !== endpoint) {
      // ASMX 2.0 with the HttpGet and HttpPost protocols disabled (its default).
      return void res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`System.InvalidOperationException: Request format is unrecognized for URL unexpectedly ending in '/${operation}'.`);
    }
    const upstream = await fetch(opts.upstream + url.pathname, {
      method: req.method, body: req.method === 'POST' ? body : undefined,
      headers: Object.fromEntries(['content-type', 'soapaction'].filter((h) => req.headers[h]).map((h) => [h, String(req.headers[h])])),
    });
    const text = await upstream.text();
    const type = upstream.headers.get('content-type') ?? 'text/xml; charset=utf-8';
    res.writeHead(upstream.status, { 'content-type': type }).end(asmxEnvelope(text));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An svapi SOAP answer written as ASMX writes one. */
function asmxEnvelope(xml: string): string {
  const env = parseXml(xml).root;
  const soap12 = env.uri === SOAP12;
  const p = soap12 ? 'soap12' : 'soap';
  const body = child(env, 'Body');
  const out = [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<${p}:Envelope xmlns:${p}="${soap12 ? SOAP12 : SOAP11}" xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD}">`,
    `  <${p}:Body>`,
  ];
  for (const c of body.children) {
    if (c.local === 'Fault') out.push(...asmxFault(c, p, soap12));
    else out.push(...element(c, '    ', true));
  }
  out.push(`  </${p}:Body>`, `</${p}:Envelope>`);
  return out.join('\r\n');
}

/** ASMX's fault: the code and text, and an empty detail. */
function asmxFault(fault: XmlElement, p: string, soap12: boolean): string[] {
  if (!soap12) {
    const code = child(fault, 'faultcode').text.trim().replace(/^.*:/, `${p}:`);
    return ['    <soap:Fault>', `      <faultcode>${code}</faultcode>`,
      `      <faultstring>System.Web.Services.Protocols.SoapException: ${esc(child(fault, 'faultstring').text)}</faultstring>`,
      '      <detail />', '    </soap:Fault>'];
  }
  const value = child(child(fault, 'Code'), 'Value').text.trim().replace(/^.*:/, `${p}:`);
  const text = child(child(fault, 'Reason'), 'Text').text;
  return [`    <${p}:Fault>`, `      <${p}:Code><${p}:Value>${value}</${p}:Value></${p}:Code>`,
    `      <${p}:Reason><${p}:Text xml:lang="en">${esc(text)}</${p}:Text></${p}:Reason>`, `      <${p}:Detail />`, `    </${p}:Fault>`];
}

/** A record element in the default namespace (declared on the first one), two spaces a level. */
function element(el: XmlElement, indent: string, declare: boolean): string[] {
  const ns = declare ? ` xmlns="${el.uri}"` : '';
  if (isNil(el)) return [`${indent}<${el.local}${ns} xsi:nil="true" />`];
  if (!el.children.length) return [el.text ? `${indent}<${el.local}${ns}>${esc(el.text)}</${el.local}>` : `${indent}<${el.local}${ns} />`];
  return [`${indent}<${el.local}${ns}>`, ...el.children.flatMap((c) => element(c, `${indent}  `, false)), `${indent}</${el.local}>`];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

