/**
 * An MCP Apps view as the console serves it into its page's sandboxed iframe
 * (`GET /api/connections/<id>/view?uri=ui://...`): the HTML of the `ui://` resource, read through
 * the connection, under a Content-Security-Policy of its own built from the view's `_meta.ui.csp`
 * (nothing external unless the view declared it) and `sandbox allow-scripts`, so the view runs in
 * an opaque origin: it reaches neither the console's API nor its token, only the page's
 * postMessage bridge (page/app-view.tsx).
 */
import type { ServerResponse } from 'node:http';
import { APP_MIME_TYPE, type AppCsp } from '../extensions/apps.js';
import type { ReadResourceResult } from '../protocol/types.js';
import { isPlainObject } from '../util/guards.js';
import { COMMON_HEADERS, sendText } from './responses.js';

/** An origin list from the view's CSP, kept to what a CSP source may be (no quotes, no `;`). */
function sources(origins: unknown): string {
  if (!Array.isArray(origins)) return '';
  return origins
    .filter((o): o is string => typeof o === 'string' && /^[A-Za-z0-9*.:/_-]+$/.test(o))
    .map((o) => ` ${o}`)
    .join('');
}

/** The view's policy: inline script and style (a view is one HTML file), its declared origins only. */
export function viewPolicy(csp: AppCsp | undefined): string {
  const resources = sources(csp?.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline'${resources}`,
    `style-src 'unsafe-inline'${resources}`,
    `img-src data: blob:${resources}`,
    `font-src data:${resources}`,
    `media-src data: blob:${resources}`,
    `connect-src${sources(csp?.connectDomains) || " 'none'"}`,
    `frame-src${sources(csp?.frameDomains) || " 'none'"}`,
    `base-uri${sources(csp?.baseUriDomains) || " 'none'"}`,
    "form-action 'none'",
    "frame-ancestors 'self'",
    'sandbox allow-scripts',
  ].join('; ');
}

/** Answers with the view of `result` (a `resources/read` of a `ui://` URI), or says why not. */
export function serveView(res: ServerResponse, uri: string, result: ReadResourceResult): void {
  const content = result.contents.find((c) => c.mimeType === APP_MIME_TYPE && 'text' in c) as
    | { text: string; _meta?: Record<string, unknown> }
    | undefined;
  if (content === undefined) {
    sendText(res, 415, `${uri} has no ${APP_MIME_TYPE} content: it is not an MCP Apps view.`);
    return;
  }
  const ui = content._meta?.ui;
  const csp = isPlainObject(ui) && isPlainObject(ui.csp) ? (ui.csp as AppCsp) : undefined;
  res.writeHead(200, {
    ...COMMON_HEADERS,
    // Framed by the console's own page, and only by it.
    'x-frame-options': 'SAMEORIGIN',
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': viewPolicy(csp),
  });
  res.end(content.text);
}
