import type { Req } from './exchange';
import type { Config } from '../config';

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.split(',')[0].trim();

/**
 * The base URL the client used, for WSDL addresses and page links: SVAPI_PUBLIC_URL if set,
 * X-Forwarded-Proto/Host only when SVAPI_TRUST_PROXY is on, else the Host header. A host that
 * is not a plain host name or address is ignored, so it can never inject markup.
 */
export function baseUrl(req: Req, config: Config): string {
  if (config.SVAPI_PUBLIC_URL) return config.SVAPI_PUBLIC_URL.replace(/\/+$/, '');
  const forwardedProto = config.SVAPI_TRUST_PROXY ? first(req.headers['x-forwarded-proto'])?.toLowerCase() : undefined;
  const forwardedHost = config.SVAPI_TRUST_PROXY ? first(req.headers['x-forwarded-host']) : undefined;
  const proto = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : 'http';
  const host = [forwardedHost, req.headers.host].find((h) => h && HOST.test(h)) ?? 'localhost';
  return `${proto}://${host}`;
}
