import type { BindingModule } from '../../pipeline/binding';
import { formPairs, xmlPairsBinding } from '.';

/**
 * HTTP POST `<path>/<Operation>` with a form: a bare XML document. Its route takes every media
 * type no other binding's route on `<path>/<Operation>` takes, and refuses what is not a form (415).
 */
export const httpPostBinding: BindingModule = {
  names: ['http-post'],
  routes: [{ method: 'POST', target: 'operation' }],
  create: (endpoint, ctx) => xmlPairsBinding(endpoint, ctx, 'http-post', formPairs(ctx)),
};
