/**
 * The page's files, built by `npm run build` into build/dist/console/ (scripts/bundle-console.js)
 * and shipped with the package: nothing is fetched from elsewhere at run time.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { packageFile } from '../util/package-file.js';
import { COMMON_HEADERS, sendText } from './responses.js';

const TYPES: Readonly<Record<string, string>> = {
  'page.js': 'text/javascript; charset=utf-8',
  'page.css': 'text/css; charset=utf-8',
};

/**
 * Only the console's own files; images and audio from servers arrive as data: or blob: URLs.
 * `unsafe-inline` is never allowed, so text a server sends can never run as script or style.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  // MCP Apps views, served by the console's API under a policy of their own (app-view.ts).
  "frame-src 'self'",
  'img-src data: blob:',
  'media-src data: blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const cache = new Map<string, string>();

async function asset(name: string): Promise<string> {
  let text = cache.get(name);
  if (text === undefined) {
    try {
      text = await readFile(packageFile(`build/dist/console/${name}`), 'utf8');
    } catch (error) {
      throw new Error(
        `The console's page is missing (${name}: ${(error as Error).message}). Run "npm run build" in the Switchboard package.`,
      );
    }
    cache.set(name, text);
  }
  return text;
}

/** The page, with the token in its asset URLs (every request needs it, those too). */
export async function servePage(res: ServerResponse, token: string): Promise<void> {
  const html = (await asset('index.html')).replaceAll('{{TOKEN}}', encodeURIComponent(token));
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': CONTENT_SECURITY_POLICY,
  });
  res.end(html);
}

export async function serveAsset(res: ServerResponse, name: string): Promise<void> {
  const type = TYPES[name];
  if (type === undefined) return sendText(res, 404, `The console has no file ${JSON.stringify(name)}.`);
  res.writeHead(200, { ...COMMON_HEADERS, 'content-type': type });
  res.end(await asset(name));
}
