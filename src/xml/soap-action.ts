// SOAPAction values (CONTRACT §1): one rule for the served WSDL, the help pages and the input check.

/**
 * ASMX's SOAPAction of an operation: the namespace, then the operation name, with a `/` between
 * only when the namespace does not already end in one (`http://tempuri.org/` gives
 * `http://tempuri.org/GetMonster`; `SVAPI` gives `SVAPI/GetMonster`).
 */
export function soapActionFor(ns: string, operation: string): string {
  return ns.endsWith('/') ? ns + operation : `${ns}/${operation}`;
}

/**
 * The actions a request may name for an operation: ASMX's, and the plain `<namespace>/<Operation>`
 * where the two differ (a namespace ending in `/`), which clients built by string joining send.
 */
export function acceptedActions(ns: string, operation: string): ReadonlySet<string> {
  return new Set([soapActionFor(ns, operation), `${ns}/${operation}`]);
}
