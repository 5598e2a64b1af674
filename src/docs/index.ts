// Discovery (CONTRACT §2): `GET /` lists the endpoints; `GET <path>` is an endpoint's help page,
// `GET <path>?op=<Operation>` an operation's page, `GET <path>?wsdl` its WSDL as ASMX published it
// (`?wsdl=faults`: with ServiceError declared as each SOAP 1.1 operation's fault), `GET <path>?disco`
// its DISCO document. Every page is built
// from the operation table and the metadata generated from the WSDLs.

import { XML_TYPE } from '../xml/vocabulary';
import { operationsOf, type Operation } from '../operations/catalog';
import { Answer, sendAnswer } from '../http/answer';
import { queryOf, sendBody, type Req, type Res } from '../http/exchange';
import { BINDING_NAMES } from '../bindings/registry';
import type { ServiceContext } from '../pipeline/service-context';
import { baseUrl } from '../http/base-url';
import { soapActionFor } from '../xml/soap-action';
import { ENDPOINTS, type Endpoint } from '../wsdl/endpoints';
import { bindingDocs, type BindingDocs } from './bindings';
import { discoDocument } from './disco';
import { codeBlock, html, layout, PAGE_HEADERS, raw, scriptHeaders, type Html } from './pages';
import { errorSample, httpRoot, paramDocs, sampleTarget, type ParamDoc } from './samples';

type PageHandler = (req: Req, res: Res) => void;

/** The served bindings as the pages show them, in the pages' order. */
const BINDINGS = bindingDocs(BINDING_NAMES);

/** The query string's pairs, keys lower-cased (`?WSDL` = `?wsdl`, `?DISCO` = `?disco`, `?OP=` = `?op=`). */
function pageQuery(req: Req): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(queryOf(req))) {
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
  wsdlWithFaults = (e: Endpoint) => `${this.base}${e.path}?wsdl=faults`;
  disco = (e: Endpoint) => `${this.base}${e.path}?disco`;
  operation = (e: Endpoint, op: Operation) => `${this.base}${e.path}?op=${encodeURIComponent(op.name)}`;
  invoke = (e: Endpoint, op: Operation) => `${this.base}${e.path}/${op.name}`;
  bindingPage = (e: Endpoint, op: Operation, b: BindingDocs) => `${this.operation(e, op)}&${b.page!.query}`;
}

/** A page or document: with its ETag and compressed as the request negotiates when it is found (200), else as it is. */
function send(req: Req, res: Res, status: number, page: string, headers: Record<string, string> = PAGE_HEADERS) {
  const { 'Content-Type': type, ...rest } = headers;
  if (status === 200) sendAnswer(req, res, type, new Answer(page), true, rest);
  else sendBody(res, status, type, page, rest);
}

const XML_HEADERS = { 'Content-Type': XML_TYPE };

/**
 * GET on an endpoint path: `?wsdl` gives the WSDL (`?wsdl=faults`, any case, the one with typed
 * faults; any other value the default, as ASMX ignored it), `?disco` the DISCO document, `?op=`
 * an operation's page, else the help page.
 */
export function endpointGetHandler(endpoint: Endpoint, ctx: ServiceContext): PageHandler {
  return (req, res) => {
    res.locals.binding = 'docs';
    const base = baseUrl(req, ctx.config);
    const query = pageQuery(req);
    const ns = ctx.config.SVAPI_NAMESPACE;
    const wsdl = query.get('wsdl');
    if (wsdl !== undefined) {
      const form = wsdl.toLowerCase() === 'faults' ? 'faults' : 'legacy';
      return send(req, res, 200, ctx.wsdl.wsdl(endpoint, base, form), XML_HEADERS);
    }
    if (query.has('disco')) return send(req, res, 200, discoDocument(endpoint, base, ns), XML_HEADERS);
    const links = new Links(base);
    const wanted = query.get('op');
    if (wanted === undefined) {
      send(req, res, 200, endpointPage(endpoint, links, ns));
      return;
    }
    const op = operationsOf(endpoint).find((o) => o.name === wanted);
    if (!op) return send(req, res, 404, unknownOperationPage(endpoint, wanted, links));
    const own = BINDINGS.find((b) => b.page && query.has(b.page.query));
    if (own) send(req, res, 200, bindingPage(own, endpoint, op, links, ns), scriptHeaders(own.page!.script));
    else send(req, res, 200, operationPage(endpoint, op, links, ns));
  };
}

/** `GET /`: the four endpoints, how to call them, and the operational URLs. */
export function indexHandler(ctx: ServiceContext): PageHandler {
  return (req, res) => {
    res.locals.binding = 'docs';
    const links = new Links(baseUrl(req, ctx.config));
    send(req, res, 200, indexPage(links, ctx.config.SVAPI_NAMESPACE));
  };
}

function indexPage(links: Links, ns: string): string {
  const rows = ENDPOINTS.map((e) => html`<tr>
<td><a href="${links.endpoint(e)}"><b>${e.service}</b></a><br /><code>${e.path}</code></td>
<td>${operationsOf(e).map((op, i) => html`${i ? ', ' : ''}<a href="${links.operation(e, op)}">${op.name}</a>`)}</td>
<td><a href="${links.wsdl(e)}">WSDL</a> (<a href="${links.wsdlWithFaults(e)}">with typed faults</a>)</td>
</tr>`);
  const body = html`<p class="summary">Read-only queries over game reference data: weapons, items, monsters,
hunting globals and auction categories. Every operation is served over ${bindingTitles()}, and every
XML answer is in the namespace <code>${ns}</code>.</p>

<h2>Endpoints</h2>
<table>
<thead><tr><th>Service</th><th>Operations</th><th>Service description</th></tr></thead>
<tbody>${rows}</tbody>
</table>
<p class="note">Each service's page lists its operations; each operation's page shows its parameters,
sample requests and responses for every binding, and a form to try it.</p>
${wsdlFormsNote()}

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

const rows = () => BINDINGS;

/** `SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST and JSON`: the served bindings, in the pages' order. */
function bindingTitles(): string {
  const titles = rows().map((r) => r.title);
  return `${titles.slice(0, -1).join(', ')} and ${titles[titles.length - 1]}`;
}

function bindingsTable(): Html {
  return html`<table>
<thead><tr><th>Binding</th><th>Request</th><th>Answer</th></tr></thead>
<tbody>
${rows().map((r) => html`<tr><td>${r.title}</td><td>${r.request}</td><td>${r.answer}</td></tr>
`)}</tbody>
</table>
<p class="note">Errors are a SOAP fault on the SOAP bindings and a <code>&lt;ServiceError&gt;</code> document
(with <code>Code</code>, <code>Message</code> and, when one parameter is at fault, <code>Parameter</code>) on HTTP GET and POST.</p>`;
}

/** Which of the two WSDLs to generate a client from. */
function wsdlFormsNote(): Html {
  return html`<p class="note">Two service descriptions per service. <code>?wsdl</code> is the WSDL as the legacy
ASMX service published it: stubs generated from it have the legacy API, so code written against the legacy
stubs compiles unchanged; use it unless you want typed faults. <code>?wsdl=faults</code> also declares
<code>ServiceError</code> as each SOAP 1.1 operation's fault, so wsimport, gSOAP and Axis generate a typed
fault (a checked exception in Java) with <code>Code</code>, <code>Message</code> and <code>Parameter</code>;
use it for new clients that want to catch it. The service answers both alike: every fault carries the
<code>ServiceError</code> detail.</p>`;
}

function wsdlFacts(endpoint: Endpoint, links: Links): Html {
  return html`<dt>Service description</dt><dd><a href="${links.wsdl(endpoint)}">${links.wsdl(endpoint)}</a>
(as the legacy service published it); with typed faults: <a href="${links.wsdlWithFaults(endpoint)}">${links.wsdlWithFaults(endpoint)}</a></dd>`;
}

function endpointFacts(endpoint: Endpoint, links: Links, ns: string): Html {
  return html`<dl class="facts">
<dt>Address</dt><dd><code>${links.endpoint(endpoint)}</code></dd>
<dt>Namespace</dt><dd><code>${ns}</code></dd>
${wsdlFacts(endpoint, links)}
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
${wsdlFormsNote()}
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
  const forms = BINDINGS.flatMap((b) => (b.form ? [tryForm(b.form, action, params)] : []));
  const ownPages = BINDINGS.filter((b) => b.page);

  const body = html`<p class="summary">${op.summary}</p>
<dl class="facts">
<dt>Service</dt><dd><a href="${links.endpoint(endpoint)}">${endpoint.service}</a> at <code>${links.endpoint(endpoint)}</code></dd>
<dt>Result</dt><dd><code>${httpRoot(op)}</code>${op.list ? html` (a list of <code>${op.record}</code> records)` : html` (one record)`}</dd>
<dt>SOAPAction</dt><dd><code>"${soapActionFor(ns, op.name)}"</code></dd>
${wsdlFacts(endpoint, links)}
</dl>

<h2>Parameters</h2>
<table class="params">
<thead><tr><th>Name</th><th>Type</th><th>Notes</th></tr></thead>
<tbody>${params.map((p) => html`<tr><td><code>${p.name}</code></td><td><code>${p.type}</code>${p.required ? '' : html`<span class="tag">optional</span>`}</td><td>${p.note}</td></tr>`)}</tbody>
</table>
<p class="note">Names are case-sensitive. Over HTTP GET and POST every parameter is sent as text.</p>

<h2>Test</h2>
<p>Fill in the parameters and invoke the operation: the browser shows the XML the service answers.</p>
<div class="forms">${forms}</div>
${ownPages.map((b) => html`<p>${b.title}: <a href="${links.bindingPage(endpoint, op, b)}">samples and a test form</a>.</p>`)}

<h2>Samples</h2>
<p>The following are sample requests and responses. The placeholders shown need to be replaced with
actual values. A nested value that the data lacks is written <code>xsi:nil="true"</code>.</p>
${BINDINGS.flatMap((b) => b.samples?.(op, target) ?? []).map((s) => html`<h3>${s.title}</h3>
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

/** A test form; `method` is the browser's own submission (the script of a binding's own page may take it over). */
function tryForm(method: 'get' | 'post', action: string, params: ParamDoc[], label = `HTTP ${method.toUpperCase()}`, id: string = method): Html {
  return html`<form class="try" id="${id}-form" method="${method}" action="${action}"${method === 'post' ? html` enctype="application/x-www-form-urlencoded"` : ''}>
<h3>${label}</h3>
${params.map((p) => html`<label for="${id}-${p.name}">${p.name}<small>${p.type}${p.required ? '' : ', optional'}</small></label>
<input id="${id}-${p.name}" name="${p.name}" type="text" placeholder="${p.type}" data-type="${p.type}" autocomplete="off" spellcheck="false"${p.type === 'int' ? html` inputmode="numeric"` : ''} />`)}
<button type="submit">Invoke with ${label}</button>
</form>`;
}

/** A binding's own page for an operation: its samples and a test form that the page's fixed script submits. */
function bindingPage(binding: BindingDocs, endpoint: Endpoint, op: Operation, links: Links, ns: string): string {
  const page = binding.page!;
  const id = binding.name;
  const body = html`<p class="summary">${op.summary}</p>
${page.intro}
<h2>Test</h2>
<div class="forms">${tryForm('post', links.invoke(endpoint, op), paramDocs(op), binding.title, id)}</div>
<p class="note">Answer: <output id="${id}-status" for="${id}-form"></output></p>
<figure class="code"><pre><code id="${id}-answer"></code></pre></figure>
<h2>Samples</h2>
${page.samples(op, sampleTarget(links.base, endpoint.path, ns)).map((s) => html`<h3>${s.title}</h3>
${codeBlock(s.request, 'Request')}
${codeBlock(s.response, 'Response')}`)}
<script>${raw(page.script)}</script>`;
  return layout({
    title: `${op.name} (${binding.title}): ${endpoint.service} service`,
    heading: `${op.name}: ${binding.title}`,
    crumbs: [{ label: 'svapi', href: links.home() }, { label: endpoint.service, href: links.endpoint(endpoint) }, { label: op.name, href: links.operation(endpoint, op) }, { label: binding.title }],
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
