// Discovery (CONTRACT §2): `GET /` lists the endpoints; `GET <path>` is an endpoint's help page,
// `GET <path>?op=<Operation>` an operation's page, `GET <path>?wsdl` its WSDL, `GET <path>?disco`
// its DISCO document. Every page is built
// from the operation table and the metadata generated from the WSDLs.

import type express from 'express';
import { SOAP_CONTENT_TYPES, XML_TYPE } from '../../xml/vocabulary';
import { operationsOf, type Operation } from '../../operations/catalog';
import { baseUrl } from '../base-url';
import { soapActionFor } from '../soap/action';
import type { BindingContext } from '../context';
import { ENDPOINTS, type Endpoint } from '../endpoints';
import { discoDocument } from './disco';
import { codeBlock, html, layout, PAGE_HEADERS, type Html } from './pages';
import { errorSample, httpRoot, paramDocs, samples, sampleTarget } from './samples';

/** The query string's pairs, keys lower-cased (`?WSDL` = `?wsdl`, `?DISCO` = `?disco`, `?OP=` = `?op=`). */
function queryOf(req: express.Request): Map<string, string> {
  const i = req.originalUrl.indexOf('?');
  const pairs = new Map<string, string>();
  if (i < 0) return pairs;
  for (const [k, v] of new URLSearchParams(req.originalUrl.slice(i + 1))) {
    const key = k.toLowerCase();
    if (!pairs.has(key)) pairs.set(key, v);
  }
  return pairs;
}


/** Links of one request: every address absolute under the base URL the client used. */
class Links {
  constructor(readonly base: string) {}
  home = () => `${this.base}/`;
  endpoint = (e: Endpoint) => this.base + e.path;
  wsdl = (e: Endpoint) => `${this.base}${e.path}?wsdl`;
  disco = (e: Endpoint) => `${this.base}${e.path}?disco`;
  operation = (e: Endpoint, op: Operation) => `${this.base}${e.path}?op=${encodeURIComponent(op.name)}`;
  invoke = (e: Endpoint, op: Operation) => `${this.base}${e.path}/${op.name}`;
}

function send(res: express.Response, status: number, page: string) {
  res.status(status).set(PAGE_HEADERS).send(page);
}

/** GET on an endpoint path: `?wsdl` gives the WSDL, `?disco` the DISCO document, `?op=` an operation's page, else the help page. */
export function endpointGetHandler(endpoint: Endpoint, ctx: BindingContext): express.RequestHandler {
  return (req, res) => {
    res.locals.binding = 'docs';
    const base = baseUrl(req, ctx.config);
    const query = queryOf(req);
    const ns = ctx.config.SVAPI_NAMESPACE;
    if (query.has('wsdl')) {
      res.type(XML_TYPE).send(ctx.wsdl.wsdl(endpoint, base));
      return;
    }
    if (query.has('disco')) {
      res.type(XML_TYPE).send(discoDocument(endpoint, base, ns));
      return;
    }
    const links = new Links(base);
    const wanted = query.get('op');
    if (wanted === undefined) {
      send(res, 200, endpointPage(endpoint, links, ns));
      return;
    }
    const op = operationsOf(endpoint).find((o) => o.name === wanted);
    if (op) send(res, 200, operationPage(endpoint, op, links, ns));
    else send(res, 404, unknownOperationPage(endpoint, wanted, links));
  };
}

/** `GET /`: the four endpoints, how to call them, and the operational URLs. */
export function indexHandler(ctx: BindingContext): express.RequestHandler {
  return (req, res) => {
    res.locals.binding = 'docs';
    const links = new Links(baseUrl(req, ctx.config));
    send(res, 200, indexPage(links, ctx.config.SVAPI_NAMESPACE));
  };
}

function indexPage(links: Links, ns: string): string {
  const rows = ENDPOINTS.map((e) => html`<tr>
<td><a href="${links.endpoint(e)}"><b>${e.service}</b></a><br /><code>${e.path}</code></td>
<td>${operationsOf(e).map((op, i) => html`${i ? ', ' : ''}<a href="${links.operation(e, op)}">${op.name}</a>`)}</td>
<td><a href="${links.wsdl(e)}">WSDL</a></td>
</tr>`);
  const body = html`<p class="summary">Read-only queries over game reference data: weapons, items, monsters,
hunting globals and auction categories. Every operation is served over SOAP 1.1, SOAP 1.2,
HTTP GET and HTTP POST, and every answer is XML in the namespace <code>${ns}</code>.</p>

<h2>Endpoints</h2>
<table>
<thead><tr><th>Service</th><th>Operations</th><th>Service description</th></tr></thead>
<tbody>${rows}</tbody>
</table>
<p class="note">Each service's page lists its operations; each operation's page shows its parameters,
sample requests and responses for the four bindings, and a form to try it.</p>

<h2>Calling the service</h2>
<p>Every operation takes your developer credentials <code>DevID</code> (int) and <code>DevKey</code> (string)
as its first two parameters. An operator creates them with <code>npx svapi keys create --name NAME</code>;
a service started with the embedded database prints a demo credential.</p>
${bindingsTable()}

<h2>Operations and monitoring</h2>
<ul>
<li><a href="${links.base}/healthz">${links.base}/healthz</a>: liveness</li>
<li><a href="${links.base}/readyz">${links.base}/readyz</a>: readiness (database reachable, schema current)</li>
<li><a href="${links.base}/metrics">${links.base}/metrics</a>: Prometheus metrics</li>
</ul>`;
  return layout({ title: 'svapi: game data query service', heading: 'Game data query service', home: links.home(), body });
}

function bindingsTable(): Html {
  return html`<table>
<thead><tr><th>Binding</th><th>Request</th><th>Answer</th></tr></thead>
<tbody>
<tr><td>SOAP 1.1</td><td><code>POST &lt;path&gt;</code>, <code>Content-Type: ${SOAP_CONTENT_TYPES['1.1']}</code>, <code>SOAPAction: "&lt;namespace&gt;/&lt;Operation&gt;"</code> (no second <code>/</code> when the namespace ends in one)</td><td>SOAP 1.1 envelope</td></tr>
<tr><td>SOAP 1.2</td><td><code>POST &lt;path&gt;</code>, <code>Content-Type: ${SOAP_CONTENT_TYPES['1.2']}</code></td><td>SOAP 1.2 envelope</td></tr>
<tr><td>HTTP GET</td><td><code>GET &lt;path&gt;/&lt;Operation&gt;?DevID=…&amp;DevKey=…&amp;…</code></td><td>bare XML document</td></tr>
<tr><td>HTTP POST</td><td><code>POST &lt;path&gt;/&lt;Operation&gt;</code> with an <code>application/x-www-form-urlencoded</code> body</td><td>bare XML document</td></tr>
</tbody>
</table>
<p class="note">Errors are a SOAP fault on the SOAP bindings and a <code>&lt;ServiceError&gt;</code> document
(with <code>Code</code>, <code>Message</code> and, when one parameter is at fault, <code>Parameter</code>) on HTTP GET and POST.</p>`;
}

function endpointFacts(endpoint: Endpoint, links: Links, ns: string): Html {
  return html`<dl class="facts">
<dt>Address</dt><dd><code>${links.endpoint(endpoint)}</code></dd>
<dt>Namespace</dt><dd><code>${ns}</code></dd>
<dt>Service description</dt><dd><a href="${links.wsdl(endpoint)}">${links.wsdl(endpoint)}</a></dd>
</dl>`;
}

function endpointPage(endpoint: Endpoint, links: Links, ns: string): string {
  const rows = operationsOf(endpoint).map((op) => html`<tr>
<td><a href="${links.operation(endpoint, op)}"><b>${op.name}</b></a></td>
<td>${op.summary}</td>
<td><code>${httpRoot(op)}</code></td>
</tr>`);
  const body = html`${endpointFacts(endpoint, links, ns)}
<h2>Operations</h2>
<p>The following operations are supported. For a formal definition, see the
<a href="${links.wsdl(endpoint)}">service description</a>.</p>
<table>
<thead><tr><th>Operation</th><th>What it returns</th><th>Result</th></tr></thead>
<tbody>${rows}</tbody>
</table>
<h2>Bindings</h2>
${bindingsTable()}`;
  return layout({
    title: `${endpoint.service} service`,
    heading: `${endpoint.service} service`,
    crumbs: [{ label: 'svapi', href: links.home() }, { label: endpoint.service }],
    home: links.home(),
    discovery: links.disco(endpoint),
    body,
  });
}

function operationPage(endpoint: Endpoint, op: Operation, links: Links, ns: string): string {
  const params = paramDocs(op);
  const target = sampleTarget(links.base, endpoint.path, ns);
  const action = links.invoke(endpoint, op);
  const form = (method: 'get' | 'post') => html`<form class="try" method="${method}" action="${action}"${method === 'post' ? html` enctype="application/x-www-form-urlencoded"` : ''}>
<h3>HTTP ${method.toUpperCase()}</h3>
${params.map((p) => html`<label for="${method}-${p.name}">${p.name}<small>${p.type}${p.required ? '' : ', optional'}</small></label>
<input id="${method}-${p.name}" name="${p.name}" type="text" placeholder="${p.type}" autocomplete="off" spellcheck="false"${p.type === 'int' ? html` inputmode="numeric"` : ''} />`)}
<button type="submit">Invoke with HTTP ${method.toUpperCase()}</button>
</form>`;

  const body = html`<p class="summary">${op.summary}</p>
<dl class="facts">
<dt>Service</dt><dd><a href="${links.endpoint(endpoint)}">${endpoint.service}</a> at <code>${links.endpoint(endpoint)}</code></dd>
<dt>Result</dt><dd><code>${httpRoot(op)}</code>${op.list ? html` (a list of <code>${op.record}</code> records)` : html` (one record)`}</dd>
<dt>SOAPAction</dt><dd><code>"${soapActionFor(ns, op.name)}"</code></dd>
<dt>Service description</dt><dd><a href="${links.wsdl(endpoint)}">${links.wsdl(endpoint)}</a></dd>
</dl>

<h2>Parameters</h2>
<table class="params">
<thead><tr><th>Name</th><th>Type</th><th>Notes</th></tr></thead>
<tbody>${params.map((p) => html`<tr><td><code>${p.name}</code></td><td><code>${p.type}</code>${p.required ? '' : html`<span class="tag">optional</span>`}</td><td>${p.note}</td></tr>`)}</tbody>
</table>
<p class="note">Names are case-sensitive. Over HTTP GET and POST every parameter is sent as text.</p>

<h2>Test</h2>
<p>Fill in the parameters and invoke the operation: the browser shows the XML the service answers.</p>
<div class="forms">${form('get')}${form('post')}</div>

<h2>Samples</h2>
<p>The following are sample requests and responses. The placeholders shown need to be replaced with
actual values. A nested value that the data lacks is written <code>xsi:nil="true"</code>.</p>
${samples(op, target).map((s) => html`<h3>${s.title}</h3>
${codeBlock(s.request, 'Request')}
${codeBlock(s.response, 'Response')}`)}

<h2>Errors</h2>
<p>A failed HTTP GET or POST call answers a <code>&lt;ServiceError&gt;</code> document; a failed SOAP call
answers a SOAP fault whose detail is the same element. For example:</p>
${codeBlock(errorSample(op, ns))}`;
  return layout({
    title: `${op.name}: ${endpoint.service} service`,
    heading: op.name,
    crumbs: [{ label: 'svapi', href: links.home() }, { label: endpoint.service, href: links.endpoint(endpoint) }, { label: op.name }],
    home: links.home(),
    discovery: links.disco(endpoint),
    body,
  });
}

function unknownOperationPage(endpoint: Endpoint, wanted: string, links: Links): string {
  const ops = operationsOf(endpoint);
  const close = ops.find((o) => o.name.toLowerCase() === wanted.trim().toLowerCase());
  const body = html`<p>The ${endpoint.service} service has no operation <code>${wanted}</code>${close ? html`; operation names are case-sensitive. Did you mean <a href="${links.operation(endpoint, close)}">${close.name}</a>?` : '.'}</p>
<p>Its operations:</p>
<ul>${ops.map((op) => html`<li><a href="${links.operation(endpoint, op)}">${op.name}</a></li>`)}</ul>`;
  return layout({
    title: 'Unknown operation',
    heading: 'Unknown operation',
    crumbs: [{ label: 'svapi', href: links.home() }, { label: endpoint.service, href: links.endpoint(endpoint) }],
    home: links.home(),
    discovery: links.disco(endpoint),
    body,
  });
}
