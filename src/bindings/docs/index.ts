import type express from 'express';
import { OPERATIONS } from '../../operations/catalog';
import { escapeText } from '../../xml/escape';
import { baseUrl } from '../base-url';
import type { BindingContext } from '../context';
import { ENDPOINTS, type Endpoint } from '../endpoints';

const hasQueryKey = (req: express.Request, key: string) =>
  Object.keys(req.query).some((k) => k.toLowerCase() === key);

/** GET on an endpoint path: `?wsdl` gives the WSDL; otherwise the endpoint's help page. */
export function endpointGetHandler(endpoint: Endpoint, ctx: BindingContext): express.RequestHandler {
  return (req, res) => {
    const base = baseUrl(req, ctx.config);
    if (hasQueryKey(req, 'wsdl')) {
      res.type('text/xml; charset=utf-8').send(ctx.wsdl.wsdl(endpoint, base));
      return;
    }
    const ops = OPERATIONS.filter((o) => o.endpoint === endpoint.name);
    const items = ops.map((o) => `<li><b>${escapeText(o.name)}</b>: ${escapeText(o.summary)}</li>`).join('');
    res.type('text/html; charset=utf-8').send(page(`${endpoint.service} service`,
      `<p>Operations:</p><ul>${items}</ul><p>Service description: <a href="${escapeText(base + endpoint.path)}?wsdl">${escapeText(base + endpoint.path)}?wsdl</a></p>`));
  };
}

export function indexHandler(ctx: BindingContext): express.RequestHandler {
  return (req, res) => {
    const base = baseUrl(req, ctx.config);
    const items = ENDPOINTS.map((e) => `<li><a href="${escapeText(base + e.path)}">${escapeText(e.service)}</a> (<a href="${escapeText(base + e.path)}?wsdl">WSDL</a>)</li>`).join('');
    res.type('text/html; charset=utf-8').send(page('svapi', `<p>Endpoints:</p><ul>${items}</ul>`));
  };
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeText(title)}</title></head><body><h1>${escapeText(title)}</h1>${body}</body></html>`;
}
