/**
 * DNS-rebinding and cross-origin protection (spec: servers MUST validate `Origin`; a present and
 * invalid one gets 403).
 *
 * A web page can reach a server on 127.0.0.1 in two ways: by fetching it cross-origin (the browser
 * sends the page's `Origin`), or by rebinding its own host name to 127.0.0.1 (then the request is
 * same-origin for the browser, but carries the attacker's name in `Host`, and a GET carries no
 * `Origin` at all). So both headers are checked:
 *
 * - `Host`, by default: a request that arrived on a loopback interface must name a loopback host
 *   (`localhost`, `*.localhost`, `127.x.x.x`, `[::1]`). When the adapter cannot tell the local
 *   address (a bare `fetch` handler), the Host must be loopback too, unless `allowedHosts` says
 *   otherwise. A server on a public interface configures `allowedHosts` with its public names.
 * - `Origin`, by default: absent (not a browser), the same host as `Host`, or any loopback origin
 *   when `Host` is loopback (local tools such as inspectors). `null` (sandboxed or file pages) is
 *   refused.
 */
import type { HttpExchange } from './exchange.js';

export interface OriginPolicy {
  /** Accepted `Host` names (`example.com` for any port, `example.com:8443` for one), or 'any'. */
  readonly allowedHosts?: readonly string[] | 'any';
  /** Accepted `Origin` values (`https://app.example.com`), or 'any'. */
  readonly allowedOrigins?: readonly string[] | 'any';
}

interface HostParts {
  /** Lower-case; IPv6 literals keep their brackets. */
  readonly name: string;
  readonly port: string | undefined;
}

function splitHost(host: string): HostParts | undefined {
  const value = host.trim().toLowerCase();
  if (value.length === 0) return undefined;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close === -1) return undefined;
    const rest = value.slice(close + 1);
    if (rest !== '' && !/^:\d+$/.test(rest)) return undefined;
    return { name: value.slice(0, close + 1), port: rest === '' ? undefined : rest.slice(1) };
  }
  const colon = value.lastIndexOf(':');
  if (colon === -1) return { name: value, port: undefined };
  const port = value.slice(colon + 1);
  if (!/^\d+$/.test(port)) return undefined;
  return { name: value.slice(0, colon), port };
}

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export function isLoopbackHostname(name: string): boolean {
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    IPV4_LOOPBACK.test(name) ||
    name === '[::1]' ||
    name === '::1'
  );
}

/** A socket address (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`) on the loopback interface. */
export function isLoopbackAddress(address: string): boolean {
  return (
    IPV4_LOOPBACK.test(address) ||
    address === '::1' ||
    (address.startsWith('::ffff:') && IPV4_LOOPBACK.test(address.slice(7)))
  );
}

function hostAllowed(host: HostParts, allowed: readonly string[]): boolean {
  for (const entry of allowed) {
    const parts = splitHost(entry);
    if (parts && parts.name === host.name && (parts.port === undefined || parts.port === host.port))
      return true;
  }
  return false;
}

/** The host part of an `Origin` (`http://localhost:5173` → localhost:5173), or undefined if malformed. */
function originHost(origin: string): HostParts | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)$/i.exec(origin.trim());
  return match ? splitHost(match[1]!) : undefined;
}

const normalizeOrigin = (origin: string): string => origin.trim().toLowerCase().replace(/\/$/, '');

/**
 * Applies an {@link OriginPolicy}. The Host verdict depends only on the Host header and the local
 * address, which repeat on every request of a connection, so it is memoized.
 */
export class OriginGuard {
  readonly #policy: OriginPolicy;
  readonly #hostVerdicts = new Map<string, string | undefined>();
  /** The last (Host, local address) seen and its verdict: consecutive requests mostly repeat it. */
  #last: { host: string | undefined; local: string | undefined; verdict: string | undefined } | undefined;

  constructor(policy: OriginPolicy) {
    this.#policy = policy;
  }

  /** Why the request must be refused with 403, or undefined when it may proceed. */
  check(exchange: HttpExchange): string | undefined {
    const hostHeader = exchange.header('host');
    if (this.#policy.allowedHosts !== 'any') {
      const local = exchange.localAddress;
      const last = this.#last;
      const verdict =
        last !== undefined && last.host === hostHeader && last.local === local
          ? last.verdict
          : this.#hostVerdict(hostHeader, local);
      if (verdict !== undefined) return verdict;
    }
    const origin = exchange.header('origin');
    if (origin === undefined || this.#policy.allowedOrigins === 'any') return undefined;
    return this.#checkOrigin(origin, hostHeader);
  }

  #hostVerdict(hostHeader: string | undefined, local: string | undefined): string | undefined {
    const key = `${local ?? ''} ${hostHeader ?? ''}`;
    let verdict = this.#hostVerdicts.get(key);
    if (verdict === undefined && !this.#hostVerdicts.has(key)) {
      verdict = this.#checkHost(hostHeader, local);
      // Bounded: a client cycling through Host values cannot grow it without limit.
      if (this.#hostVerdicts.size >= 256) this.#hostVerdicts.clear();
      this.#hostVerdicts.set(key, verdict);
    }
    this.#last = { host: hostHeader, local, verdict };
    return verdict;
  }

  #checkHost(hostHeader: string | undefined, local: string | undefined): string | undefined {
    const host = hostHeader === undefined ? undefined : splitHost(hostHeader);
    if (!host) {
      return `Forbidden: the request has ${hostHeader === undefined ? 'no Host header' : `a malformed Host header ${JSON.stringify(hostHeader)}`}. Send the server's host name in Host.`;
    }
    const allowed = this.#policy.allowedHosts;
    if (allowed !== undefined && allowed !== 'any') {
      return hostAllowed(host, allowed)
        ? undefined
        : `Forbidden: Host ${JSON.stringify(hostHeader)} is not in this server's allowedHosts. If this name is legitimate, add it to the allowedHosts option.`;
    }
    const mustBeLoopback = local === undefined || isLoopbackAddress(local);
    if (mustBeLoopback && !isLoopbackHostname(host.name)) {
      return (
        `Forbidden: Host ${JSON.stringify(hostHeader)} is not a loopback name, and this server ${local === undefined ? 'accepts only loopback hosts unless configured' : 'is reached on a loopback interface'} ` +
        '(DNS rebinding protection). Connect through localhost or 127.0.0.1, or list the public host names in the allowedHosts option.'
      );
    }
    return undefined;
  }

  #checkOrigin(origin: string, hostHeader: string | undefined): string | undefined {
    const allowed = this.#policy.allowedOrigins;
    if (allowed !== undefined && allowed !== 'any') {
      const wanted = normalizeOrigin(origin);
      if (allowed.some((entry) => normalizeOrigin(entry) === wanted)) return undefined;
      return `Forbidden: Origin ${JSON.stringify(origin)} is not in this server's allowedOrigins. Add it to the allowedOrigins option if pages from it may call this server.`;
    }
    const from = origin === 'null' ? undefined : originHost(origin);
    const host = hostHeader === undefined ? undefined : splitHost(hostHeader);
    if (from && host) {
      const sameHost = from.name === host.name && (from.port ?? '') === (host.port ?? '');
      if (sameHost || (isLoopbackHostname(from.name) && isLoopbackHostname(host.name))) return undefined;
    }
    return `Forbidden: Origin ${JSON.stringify(origin)} is not allowed to call this server (cross-origin requests are refused by default). List trusted origins in the allowedOrigins option.`;
  }
}
