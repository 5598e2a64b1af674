import { soapBinding } from '../bindings/soap';
import { httpGetBinding } from '../bindings/http/get';
import { httpPostBinding } from '../bindings/http/post';
import { jsonBinding } from '../bindings/json';
import type { BindingModule } from './binding';

/**
 * Every binding the service serves, in the order the help pages list them. Where two share a route
 * (method and path), the first whose media type predicate takes the request serves it.
 */
export const BINDINGS: readonly BindingModule[] = [soapBinding, httpGetBinding, jsonBinding, httpPostBinding];

/** Every name a call can go by in logs, metrics and cache keys. */
export const BINDING_NAMES: readonly string[] = BINDINGS.flatMap((b) => b.names);
