import proxyAddr from 'proxy-addr';
import type { Req } from './exchange';

const oneHop = (_addr: string, hop: number) => hop < 1;

/**
 * The client's address (the auth-failure throttle's key): the socket's peer, or with
 * SVAPI_TRUST_PROXY the address one proxy in front saw (X-Forwarded-For), as Express's
 * `trust proxy = 1` gives it.
 */
export function clientAddress(req: Req, trustProxy: boolean): string {
  if (!trustProxy) return req.socket.remoteAddress ?? '';
  return proxyAddr(req, oneHop) ?? '';
}
