import type http from 'node:http';
import { endInTurn } from './turn-writes';

const PATH = '/favicon.ico';

/**
 * Browsers ask every site for /favicon.ico. The service has no icon: the answer is 204 No
 * Content, cached for a day, ahead of the access log and metrics, where it would otherwise show
 * as a stream of 404s for an unknown path.
 */
export function answerFavicon(next: http.RequestListener): http.RequestListener {
  return (req, res) => {
    if (!isFavicon(req)) return next(req, res);
    res.writeHead(204, { 'Cache-Control': 'public, max-age=86400' });
    endInTurn(res);
  };
}

// Every request passes here: a prefix test, no string made.
function isFavicon(req: http.IncomingMessage): boolean {
  const url = req.url ?? '';
  return url.startsWith(PATH) && (url.length === PATH.length || url[PATH.length] === '?') && (req.method === 'GET' || req.method === 'HEAD');
}
