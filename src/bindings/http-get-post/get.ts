import type { BindingModule } from '../../pipeline/binding';
import { queryPairs, xmlPairsBinding } from '.';

/** HTTP GET `<path>/<Operation>?...`: the parameters in the query string, a bare XML document. */
export const httpGetBinding: BindingModule = {
  names: ['http-get'],
  routes: [{ method: 'GET', target: 'operation' }],
  create: (endpoint, ctx) => xmlPairsBinding(endpoint, ctx, 'http-get', queryPairs),
};
