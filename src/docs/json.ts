// The JSON binding's own help page (`<path>?op=<Operation>&json`): what it takes and answers, a
// sample, and the test form's script.

import { RecordFields, type FieldMeta, type RecordName, type XsdType } from '../generated/records';
import type { Operation } from '../operations/catalog';
import { ASP_NET_DATE, aspNetDate, aspNetMilliseconds } from '../bindings/json/asp-net-date';
import { JSON_TYPE } from '../bindings/json';
import { html } from './pages';
import { paramDocs, type Sample, type SampleTarget } from './samples';

export const JSON_INTRO = html`<p>The operation as ASP.NET AJAX pages called ASMX services (ScriptService): the parameters as one JSON object,
ints as JSON numbers (or numeric strings), strings as JSON strings; the answer is <code>{"d": result}</code> with the
record's fields in schema order, decimals as JSON numbers written exactly as stored, and nil or absent values as
<code>null</code>. A dateTime is written as ASP.NET's JavaScriptSerializer wrote a <code>DateTime</code>: the JSON text
<code>"\\/Date(<var>milliseconds</var>)\\/"</code> (parsed, the string <code>/Date(1795019833000)/</code>), the milliseconds
since 1970-01-01T00:00:00Z, negative before it, any part of a millisecond cut off toward zero. ASP.NET AJAX and .NET's
JavaScriptSerializer turn it back into a date; elsewhere, read the number with <code>${String(ASP_NET_DATE)}</code>
and pass it to <code>new Date(number)</code>. An error is <code>{"Message", "ExceptionType", "Code"}</code> with the status
of the HTTP GET and POST bindings.</p>`;

const SAMPLE_XSD_DATE = '2026-11-21T18:04:05Z';
// The sample date as JSON.parse gives it; JSON.stringify leaves its `/` unescaped.
const SAMPLE_DATE = `/Date(${aspNetMilliseconds(SAMPLE_XSD_DATE)})/`;
const SAMPLE_VALUES: Record<XsdType, unknown> = { int: 0, decimal: 1.5, boolean: true, dateTime: SAMPLE_DATE, string: 'string' };

function sampleRecord(record: RecordName): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of RecordFields[record] as readonly FieldMeta[]) {
    out[field.name] = field.kind === 'simple' ? SAMPLE_VALUES[field.type]
      : field.kind === 'record' ? sampleRecord(field.type)
        : [sampleRecord(field.type), sampleRecord(field.type)];
  }
  return out;
}

export function jsonSample(op: Operation, t: SampleTarget): Sample {
  const params = Object.fromEntries(paramDocs(op).map((p) => [p.name, p.type === 'int' ? 0 : 'string']));
  const body = JSON.stringify(params);
  const result = op.list ? [sampleRecord(op.record), sampleRecord(op.record)] : sampleRecord(op.record);
  return {
    title: 'JSON',
    request: `POST ${t.path}/${op.name} HTTP/1.1\nHost: ${t.host}\nContent-Type: ${JSON_TYPE}\nContent-Length: length\n\n${body}`,
    response: `HTTP/1.1 200 OK\nContent-Type: ${JSON_TYPE}\nContent-Length: length\n\n${JSON.stringify({ d: result }, null, 2).replaceAll(JSON.stringify(SAMPLE_DATE), aspNetDate(SAMPLE_XSD_DATE))}`,
  };
}

/**
 * The test form's script (fixed text: the page's Content-Security-Policy allows it by its hash):
 * sends the form's fields as a JSON object, ints as numbers, and shows the answer as received.
 * No `&` or `<` in it: the page stays well-formed XML like every page.
 */
export function tryScript(): string {
  return `(() => {
  const form = document.getElementById('json-form');
  const status = document.getElementById('json-status');
  const answer = document.getElementById('json-answer');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const params = {};
    for (const input of form.querySelectorAll('input')) {
      const text = input.value.trim();
      if (text === '') continue;
      const int = input.dataset.type === 'int' ? /^[-+]?[0-9]+$/.test(text) : false;
      params[input.name] = int ? Number(text) : input.value;
    }
    try {
      const response = await fetch(new URL(form.action).pathname, {
        method: 'POST', headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: JSON.stringify(params),
      });
      answer.textContent = await response.text();
      status.textContent = response.status + ' ' + response.statusText;
    } catch (e) {
      status.textContent = String(e);
    }
  });
})();`;
}
