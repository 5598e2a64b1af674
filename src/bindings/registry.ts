import { soapBinding } from './soap';
import { httpGetBinding } from './http-get-post/get';
import { httpPostBinding } from './http-get-post/post';
import { jsonBinding } from './json';
import type { BindingModule } from '../pipeline/binding';

/**
 * Every binding the service serves, in routing order: where two share a route (method and path),
 * the first whose media type predicate takes the request serves it (JSON before HTTP POST, which
 * takes the rest). The help pages keep an order of their own (docs/bindings.ts).
 */
export const BINDINGS: readonly BindingModule[] = [soapBinding, httpGetBinding, jsonBinding, httpPostBinding];

/** Every name a call can go by in logs, metrics and cache keys. */
export const BINDING_NAMES: readonly string[] = BINDINGS.flatMap((b) => b.names);
