/**
 * Who may use the console. It can start programs on this machine, so every request must show that
 * it comes from the person who started it, and not from a web page that happens to run in their
 * browser. Three checks, all on every request (see docs/console.md, "Security"):
 *
 * - the token: a random secret printed in the console's URL, sent as `?token=` or in a header;
 * - Host: only the loopback names of the console's own port, which stops DNS rebinding (a page on
 *   evil.example whose name starts resolving to 127.0.0.1 still sends `Host: evil.example`);
 * - Origin (and Sec-Fetch-Site): a browser names the page that made a request; only the console's
 *   own origin is accepted, so another site's page cannot even make a "simple" POST it cannot read.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { TOKEN_HEADER } from './api-types.js';

/** 192 bits, URL-safe. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export interface Refusal {
  readonly status: 401 | 403 | 421;
  readonly message: string;
}

export class ConsoleGuard {
  readonly #digest: Buffer;
  readonly #hosts: ReadonlySet<string>;
  readonly #origins: ReadonlySet<string>;

  constructor(token: string, port: number, extraHosts: readonly string[] = []) {
    this.#digest = digest(token);
    const names = ['127.0.0.1', 'localhost', '[::1]', ...extraHosts];
    this.#hosts = new Set(names.map((name) => `${name}:${port}`.toLowerCase()));
    this.#origins = new Set([...this.#hosts].map((host) => `http://${host}`));
  }

  /** Why the request is refused, or undefined when it may go on. */
  check(req: IncomingMessage, url: URL): Refusal | undefined {
    const host = req.headers.host?.toLowerCase();
    if (host === undefined || !this.#hosts.has(host)) {
      return {
        status: 421,
        message: `The console answers only to ${[...this.#hosts].join(', ')}, not to Host ${JSON.stringify(host ?? '')}.`,
      };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.#origins.has(origin.toLowerCase())) {
      return {
        status: 403,
        message: `Requests from pages on ${origin} are refused: open the console's own URL.`,
      };
    }
    if (req.headers['sec-fetch-site'] === 'cross-site') {
      return { status: 403, message: "Cross-site requests are refused: open the console's own URL." };
    }
    const header = req.headers[TOKEN_HEADER];
    const given = typeof header === 'string' ? header : url.searchParams.get('token');
    if (given === null || !timingSafeEqual(digest(given), this.#digest)) {
      return {
        status: 401,
        message:
          given === null
            ? 'The console needs its token: open the full URL it printed when it started (…/?token=…).'
            : 'Wrong token: open the full URL the console printed when it started.',
      };
    }
    return undefined;
  }
}

/** Compared as digests, so the comparison takes the same time whatever the length given. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
