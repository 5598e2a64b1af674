import type { BindingModule } from '../../pipeline/binding';
import { html } from '../../docs/pages';
import { httpGetSample } from '../../docs/samples';
import { queryPairs, xmlPairsBinding } from '.';

/** HTTP GET `<path>/<Operation>?...`: the parameters in the query string, a bare XML document. */
export const httpGetBinding: BindingModule = {
  names: ['http-get'],
  routes: [{ method: 'GET', target: 'operation' }],
  docs: {
    rows: [{ title: 'HTTP GET', request: html`<code>GET &lt;path&gt;/&lt;Operation&gt;?DevID=…&amp;DevKey=…&amp;…</code>`, answer: 'bare XML document' }],
    samples: (op, target) => [httpGetSample(op, target)],
    form: 'get',
  },
  create: (endpoint, ctx) => xmlPairsBinding(endpoint, ctx, 'http-get', queryPairs),
};
