import type { BindingModule } from '../../pipeline/binding';
import { html } from '../../docs/pages';
import { httpPostSample } from '../../docs/samples';
import { formPairs, xmlPairsBinding } from '.';

/**
 * HTTP POST `<path>/<Operation>` with a form: a bare XML document. Its route takes every media
 * type no other binding's route on `<path>/<Operation>` takes, and refuses what is not a form (415).
 */
export const httpPostBinding: BindingModule = {
  names: ['http-post'],
  routes: [{ method: 'POST', target: 'operation' }],
  docs: {
    rows: [{ title: 'HTTP POST', request: html`<code>POST &lt;path&gt;/&lt;Operation&gt;</code> with an <code>application/x-www-form-urlencoded</code> body`, answer: 'bare XML document' }],
    samples: (op, target) => [httpPostSample(op, target)],
    form: 'post',
  },
  create: (endpoint, ctx) => xmlPairsBinding(endpoint, ctx, 'http-post', formPairs(ctx)),
};
