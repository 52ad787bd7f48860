/**
 * Which addresses a server sends the page may turn into links a person follows (a URL-mode
 * elicitation's page): https, and http only on a loopback host (a local development server).
 * Anything else (`javascript:`, `data:`, `file:`, plain http to another host) is shown as text.
 */
import { isLoopbackHostname } from '../../transports/http/server/security.js';

/** `url` itself when it may be a link, else undefined. */
export function followableUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const web =
    parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isLoopbackHostname(parsed.hostname));
  return web ? url : undefined;
}
