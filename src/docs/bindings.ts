// How the help pages show each binding, keyed by the binding's name (the registry's names,
// bindings/registry.ts), in the order the pages list them: SOAP 1.1, SOAP 1.2, HTTP GET, HTTP
// POST, JSON. The routing order is the registry's own concern.

import type { Operation } from '../operations/catalog';
import { SOAP_CONTENT_TYPES } from '../xml/vocabulary';
import { JSON_INTRO, jsonSample, tryScript } from './json';
import { html, type Html } from './pages';
import { httpGetSample, httpPostSample, soapSample, type Sample, type SampleTarget } from './samples';

/** How the help pages show one binding. */
export interface BindingDocs {
  /** The binding's name, as the registry has it. */
  name: string;
  /** Its row of the bindings table. */
  title: string;
  request: Html;
  answer: string;
  /** Sample request and response of an operation, shown on the operation's page. */
  samples?(op: Operation, target: SampleTarget): Sample[];
  /** A test form of the operation's page, submitted by the browser itself. */
  form?: 'get' | 'post';
  /**
   * A page of its own for each operation (`<path>?op=<Operation>&<query>`), with its samples and a
   * test form that a fixed script submits: the operation page stays free of scripts.
   */
  page?: { query: string; intro: Html; samples(op: Operation, target: SampleTarget): Sample[]; script: string };
}

const HELP_ORDER: readonly BindingDocs[] = [
  {
    name: 'soap11',
    title: 'SOAP 1.1',
    request: html`<code>POST &lt;path&gt;</code>, <code>Content-Type: ${SOAP_CONTENT_TYPES['1.1']}</code>, <code>SOAPAction: "&lt;namespace&gt;/&lt;Operation&gt;"</code> (no second <code>/</code> when the namespace ends in one)`,
    answer: 'SOAP 1.1 envelope',
    samples: (op, target) => [soapSample(op, target, '1.1')],
  },
  {
    name: 'soap12',
    title: 'SOAP 1.2',
    request: html`<code>POST &lt;path&gt;</code>, <code>Content-Type: ${SOAP_CONTENT_TYPES['1.2']}</code>`,
    answer: 'SOAP 1.2 envelope',
    samples: (op, target) => [soapSample(op, target, '1.2')],
  },
  {
    name: 'http-get',
    title: 'HTTP GET',
    request: html`<code>GET &lt;path&gt;/&lt;Operation&gt;?DevID=…&amp;DevKey=…&amp;…</code>`,
    answer: 'bare XML document',
    samples: (op, target) => [httpGetSample(op, target)],
    form: 'get',
  },
  {
    name: 'http-post',
    title: 'HTTP POST',
    request: html`<code>POST &lt;path&gt;/&lt;Operation&gt;</code> with an <code>application/x-www-form-urlencoded</code> body`,
    answer: 'bare XML document',
    samples: (op, target) => [httpPostSample(op, target)],
    form: 'post',
  },
  {
    name: 'json',
    title: 'JSON',
    request: html`<code>POST &lt;path&gt;/&lt;Operation&gt;</code>, <code>Content-Type: application/json</code>, the parameters as one JSON object (ASP.NET AJAX's ScriptService)`,
    answer: 'JSON {"d": result}; errors {"Message", "ExceptionType", "Code"}',
    page: { query: 'json', intro: JSON_INTRO, samples: (op, target) => [jsonSample(op, target)], script: tryScript() },
  },
];

/**
 * The help pages' bindings: those of `served` (the registry's names), in the help pages' order.
 * A served binding without help is a mistake of the code, refused at start-up.
 */
export function bindingDocs(served: readonly string[]): readonly BindingDocs[] {
  const missing = served.filter((name) => !HELP_ORDER.some((d) => d.name === name));
  if (missing.length) throw new Error(`no help page entry for the binding ${missing.join(', ')} (src/docs/bindings.ts)`);
  return HELP_ORDER.filter((d) => served.includes(d.name));
}
