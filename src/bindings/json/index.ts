// JSON, as ASMX's ScriptService served it to ASP.NET AJAX pages (CONTRACT §3): POST
// `<path>/<Operation>` with an `application/json` object of parameters, the answer `{"d": ...}`.

import { errors, statusFor, type ServiceError } from '../../errors';
import { RecordFields, type FieldMeta, type RecordName, type XsdType } from '../../generated/records';
import type { Operation } from '../../operations/catalog';
import type { ParamType, RawParams } from '../../operations/params';
import { decodeBody, readBody } from '../../http/body';
import { sendBody, type Res } from '../../http/exchange';
import type { BindingModule, Call, EndpointBinding } from '../../pipeline/binding';
import { pathOperation } from '../../pipeline/path-operation';
import type { ServiceContext } from '../../pipeline/service-context';
import { html } from '../docs/pages';
import { paramDocs, type Sample, type SampleTarget } from '../docs/samples';
import type { Endpoint } from '../endpoints';
import { ASP_NET_DATE, aspNetDate, aspNetMilliseconds } from './asp-net-date';
import { readJsonParams } from './read';
import { JsonRecordSerializer } from './records';

const NAME = 'json';
export const JSON_TYPE = 'application/json; charset=utf-8';

export const jsonBinding: BindingModule = {
  names: [NAME],
  routes: [{ method: 'POST', target: 'operation', accepts: (essence) => essence === 'application/json' }],
  docs: {
    rows: [{
      title: 'JSON',
      request: html`<code>POST &lt;path&gt;/&lt;Operation&gt;</code>, <code>Content-Type: application/json</code>, the parameters as one JSON object (ASP.NET AJAX's ScriptService)`,
      answer: 'JSON {"d": result}; errors {"Message", "ExceptionType", "Code"}',
    }],
    page: {
      query: 'json',
      title: 'JSON',
      intro: html`<p>The operation as ASP.NET AJAX pages called ASMX services (ScriptService): the parameters as one JSON object,
ints as JSON numbers (or numeric strings), strings as JSON strings; the answer is <code>{"d": result}</code> with the
record's fields in schema order, decimals as JSON numbers written exactly as stored, and nil or absent values as
<code>null</code>. A dateTime is written as ASP.NET's JavaScriptSerializer wrote a <code>DateTime</code>: the JSON text
<code>"\\/Date(<var>milliseconds</var>)\\/"</code> (parsed, the string <code>/Date(1795019833000)/</code>), the milliseconds
since 1970-01-01T00:00:00Z, negative before it, any part of a millisecond cut off toward zero. ASP.NET AJAX and .NET's
JavaScriptSerializer turn it back into a date; elsewhere, read the number with <code>${String(ASP_NET_DATE)}</code>
and pass it to <code>new Date(number)</code>. An error is <code>{"Message", "ExceptionType", "Code"}</code> with the status
of the HTTP GET and POST bindings.</p>`,
      samples: (op, target) => [jsonSample(op, target)],
      script: tryScript(),
    },
  },
  create: (endpoint, ctx) => createJsonBinding(endpoint, ctx),
};

function createJsonBinding(endpoint: Endpoint, ctx: ServiceContext): EndpointBinding {
  const read = readBody(ctx.config.SVAPI_MAX_BODY);
  const serializer = new JsonRecordSerializer();
  return {
    nameOf: () => NAME,
    async read(req, res, operation): Promise<Call> {
      const op = pathOperation(endpoint, operation, res);
      const { values, repeated } = readJsonParams(decodeBody(await read(req, res), res.locals.contentType?.charset));
      return { op, name: NAME, repeated, ...texts(op, values) };
    },
    render: ({ op }, result) => serializer.answer(op.record, op.list, result),
    contentType: () => JSON_TYPE,
    writeError: (res, e) => sendJsonError(res, e),
  };
}

/**
 * JSON values as the parameter texts every binding delivers, typed as ASP.NET's
 * JavaScriptSerializer converts them: an int takes a JSON number or a numeric string, a string
 * takes a JSON string or number (its text); null is absent. Anything else (true, an object, an
 * array, a fraction for an int) is refused after the credentials; a wrongly typed DevID or DevKey
 * is a credential that is not accepted.
 */
function texts(op: Operation, values: Record<string, unknown>): { params: RawParams; refused?: ServiceError } {
  const params: RawParams = Object.create(null);
  let refused: ServiceError | undefined;
  const specs: { name: string; type: ParamType }[] = [{ name: 'DevID', type: 'int' }, { name: 'DevKey', type: 'string' }, ...op.params];
  for (const spec of specs) {
    const value = values[spec.name];
    if (value === undefined || value === null) continue;
    const text = spec.type === 'int'
      ? (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'string' ? String(value) : undefined
      : typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
    if (text !== undefined) params[spec.name] = text;
    else if (spec.name !== 'DevID' && spec.name !== 'DevKey') refused ??= errors.invalid(spec.name, spec.type === 'int' ? 'must be a 32-bit integer' : 'must be a string');
  }
  return { params, refused };
}

function sendJsonError(res: Res, e: ServiceError): void {
  res.locals.outcome = e.code;
  const parameter = e.parameter === undefined ? '' : `,"Parameter":${JSON.stringify(e.parameter)}`;
  const body = `{"Message":${JSON.stringify(e.message)},"ExceptionType":"ServiceError","Code":${JSON.stringify(e.code)}${parameter}}`;
  sendBody(res, statusFor(e, 'http'), JSON_TYPE, body, e.headers);
}

// ---------------------------------------------------------------------------------------------
// Help page: a sample and the test form's script

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

function jsonSample(op: Operation, t: SampleTarget): Sample {
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
function tryScript(): string {
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
