import crypto from 'node:crypto';

// HTML building blocks of the discovery pages: escaping, a tagged template that escapes every
// interpolated value, and the page layout with its inline style sheet (no external assets).
// The markup is polyglot (void elements closed, only XML's entities): every page is also
// well-formed XML, which lets tests check its structure with an XML parser.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and (double- or single-quoted) attribute values. */
function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** Markup that is already safe: only `html` and `raw` make one. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Trusted markup, for constants written in this module's files only. */
export const raw = (markup: string): Html => new Html(markup);

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * `html\`<a href="${url}">${name}</a>\``: every interpolated value is escaped unless it is
 * already `Html`; arrays are rendered item by item. Nothing reaches a page unescaped by accident.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** A block of code (a sample request, a command): escaped, whitespace kept. */
export const codeBlock = (text: string, label?: string): Html =>
  html`<figure class="code">${label ? html`<figcaption>${label}</figcaption>` : ''}<pre><code>${text}</code></pre></figure>`;

interface Crumb {
  label: string;
  href?: string;
}

const STYLE = `
:root { --fg: #1d2330; --muted: #5b6475; --line: #dde2ea; --bg: #ffffff; --soft: #f5f7fa; --accent: #1f5fbf; --code: #0f1724; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header.top { background: #17243b; color: #fff; padding: .7rem 0; }
header.top a { color: #fff; text-decoration: none; font-weight: 600; letter-spacing: .02em; }
header.top span { color: #aeb9cc; margin-left: .6rem; font-size: .9rem; }
main { max-width: 62rem; margin: 0 auto; padding: 1.2rem 1.25rem 3rem; }
.wrap { max-width: 62rem; margin: 0 auto; padding: 0 1.25rem; }
nav.crumbs { font-size: .9rem; color: var(--muted); margin-bottom: .4rem; }
nav.crumbs a { color: var(--muted); }
h1 { font-size: 1.75rem; line-height: 1.25; margin: .2rem 0 .6rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .6rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.3rem 0 .4rem; }
p { margin: .5rem 0; }
a { color: var(--accent); }
code, pre, kbd, input { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: .9em; }
p code, td code, li code, dd code { background: var(--soft); border: 1px solid var(--line); border-radius: 4px; padding: 0 .25em; }
figure.code { margin: .6rem 0 1rem; }
figure.code figcaption { font-size: .85rem; color: var(--muted); margin-bottom: .2rem; }
pre { background: var(--code); color: #e6edf7; padding: .8rem 1rem; border-radius: 6px; overflow-x: auto; line-height: 1.45; margin: 0; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0 1rem; }
th, td { text-align: left; vertical-align: top; padding: .45rem .6rem; border-bottom: 1px solid var(--line); }
td:first-child { white-space: nowrap; }
th { font-size: .85rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; margin: .8rem 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; word-break: break-all; }
.summary { font-size: 1.05rem; color: #2f3a4d; }
.note { color: var(--muted); font-size: .92rem; }
.forms { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 1rem; }
form.try { border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem 1rem; background: var(--soft); }
form.try h3 { margin-top: 0; }
form.try label { display: block; font-weight: 600; margin-top: .6rem; }
form.try label small { font-weight: 400; color: var(--muted); margin-left: .3rem; }
form.try input { width: 100%; padding: .4rem .5rem; border: 1px solid #c3cad6; border-radius: 5px; background: #fff; }
form.try button { margin-top: .9rem; padding: .45rem 1rem; border: 0; border-radius: 5px; background: var(--accent); color: #fff; font-weight: 600; cursor: pointer; }
form.try button:hover { background: #174c99; }
.tag { display: inline-block; font-size: .78rem; padding: .05rem .4rem; border-radius: 4px; background: #e8eefb; color: #1f4a8f; margin-left: .3rem; }
footer { color: var(--muted); font-size: .85rem; margin-top: 3rem; border-top: 1px solid var(--line); padding-top: .8rem; }
`;

/**
 * A whole page: top bar, breadcrumbs, heading, content. An endpoint's pages name its DISCO
 * document (`discovery`) in the head, as ASMX's did: Visual Studio's "Add Web Reference" follows it.
 */
export function layout(opts: { title: string; heading: Html | string; crumbs?: Crumb[]; home: string; discovery?: string; body: Html }): string {
  const crumbs = opts.crumbs?.length
    ? html`<nav class="crumbs">${opts.crumbs.map((c, i) => html`${i ? ' / ' : ''}${c.href ? html`<a href="${c.href}">${c.label}</a>` : c.label}`)}</nav>`
    : '';
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${opts.title}</title>
${opts.discovery ? html`<link rel="alternate" type="text/xml" href="${opts.discovery}" />
` : ''}<style>${raw(STYLE)}</style>
</head>
<body>
<header class="top"><div class="wrap"><a href="${opts.home}">svapi</a><span>game data query service</span></div></header>
<main>
${crumbs}
<h1>${opts.heading}</h1>
${opts.body}
<footer>Read-only service; <a href="${opts.home}">its home page</a> lists the bindings it answers on.</footer>
</main>
</body>
</html>
`.value;
}

/**
 * Headers of every discovery page: HTML, and a policy that allows no script, no external
 * resource and no framing: the pages need none, so an injected one could not run either.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action http: https:; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

/**
 * Headers of a page that runs one fixed script: PAGE_HEADERS, with that script (by its hash) and
 * requests to this origin allowed. Nothing interpolated ever reaches the script's text.
 */
const scriptHeadersMade = new Map<string, Record<string, string>>();

export function scriptHeaders(script: string): Record<string, string> {
  const made = scriptHeadersMade.get(script);
  if (made) return made;
  const hash = crypto.createHash('sha256').update(script).digest('base64');
  const headers = { ...PAGE_HEADERS, 'Content-Security-Policy': `${PAGE_HEADERS['Content-Security-Policy']}; script-src 'sha256-${hash}'; connect-src 'self'` };
  scriptHeadersMade.set(script, headers);
  return headers;
}
