/**
 * What the gateway's server checks of every request, on its own pipeline, by principal: the items a
 * caller may see (`gateway.access`, as list filters: a denied item is absent from that caller's
 * lists and its call, read or get is answered as an unknown one's by the server itself, so it never
 * reaches an upstream), how often it may call (`gateway.rateLimits`, refused with the draft
 * SEP-3304 error before the call goes on) and the audit line of each request (`gateway.audit`).
 * Installed before the gateway's forwarding, so it sees every request the server takes.
 */
import { performance } from 'node:perf_hooks';
import type { Middleware } from '../engine/middleware.js';
import { rateLimited } from '../protocol/errors.js';
import type { Params } from '../protocol/jsonrpc.js';
import { featuresOf } from '../protocol/revisions.js';
import type { RequestContext } from '../server/context.js';
import { resourceNotFound } from '../server/resources.js';
import type { ServerCore } from '../server/server.js';
import { AccessPolicy } from './access.js';
import { type AuditLog, type AuditOutcome, argumentsDigest } from './audit.js';
import { callerOf } from './caller.js';
import type { GatewayConfig } from './config.js';
import { keptSubscriptions } from './following.js';
import { parseExposedUri } from './names.js';
import type { RateLimits } from './rate-limits.js';
import { onBehalfOf } from './token-exchange.js';

export interface GuardOptions {
  readonly limits?: RateLimits;
  readonly audit?: AuditLog;
  /** Some server takes tokens exchanged for the caller: requests run on behalf of their caller. */
  readonly exchanges?: boolean;
}

/** The name or URI a request is about, for rules and the audit line. */
function subjectOf(method: string, params: Params): string | null {
  switch (method) {
    case 'tools/call':
    case 'prompts/get':
      return typeof params.name === 'string' ? params.name : null;
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return typeof params.uri === 'string' ? params.uri : null;
    case 'completion/complete': {
      const ref = params.ref as { name?: unknown; uri?: unknown } | undefined;
      const named = ref?.name ?? ref?.uri;
      return typeof named === 'string' ? named : null;
    }
    default:
      return null;
  }
}

/** Requests that read or follow one resource by URI: a URI the rules deny is answered as unknown. */
const BY_URI = new Set(['resources/read', 'resources/subscribe']);

/** Installs the access filters on `server` and returns the middleware to run first. */
export function guard(
  server: ServerCore,
  config: GatewayConfig,
  options: GuardOptions,
): Middleware<RequestContext> | undefined {
  const { access: rules } = config.security;
  const access = rules === undefined ? undefined : new AccessPolicy(rules);
  if (access) {
    server.filterList('tools', (tool, ctx) => access.allows(callerOf(ctx.auth), tool.name));
    server.filterList('prompts', (prompt, ctx) => access.allows(callerOf(ctx.auth), prompt.name));
    server.filterList('resources', (resource, ctx) => access.allows(callerOf(ctx.auth), resource.uri));
    server.filterList('resourceTemplates', (template, ctx) =>
      access.allows(callerOf(ctx.auth), template.uriTemplate),
    );
  }
  const { limits, audit, exchanges } = options;
  if (!audit && !access && !exchanges && !(limits && limits.size > 0)) return undefined;
  const { separator } = config.options;
  const names = new Set(config.upstreams.map((u) => u.name));
  const bare = config.upstreams.find((u) => !u.namespace)?.name ?? null;
  /** The upstream a name or URI leads to, as far as its form tells. */
  const upstreamOf = (subject: string | null): string | null => {
    if (subject === null) return null;
    const uri = parseExposedUri(subject);
    if (uri) return names.has(uri.namespace) ? uri.namespace : bare;
    const cut = subject.indexOf(separator);
    const server = cut === -1 ? undefined : subject.slice(0, cut);
    return server !== undefined && names.has(server) ? server : bare;
  };
  return (next) => async (method, params, ctx) => {
    const started = audit ? performance.now() : 0;
    const caller = callerOf(ctx.auth);
    const subject = subjectOf(method, params);
    let outcome: AuditOutcome = 'ok';
    let sent = params;
    /** A listen's URIs left out for the caller: the audit line is `denied` and names them. */
    const refused: string[] = [];
    try {
      // A denied item: the server's list filters answer it as an unknown one (next, below), but
      // they judge a read or subscription served by a template by the template: a URI the rules
      // deny is refused here, with the server's own not-found answer.
      if (subject !== null && access && !access.allows(caller, subject)) {
        outcome = 'denied';
        if (BY_URI.has(method))
          throw resourceNotFound(subject, featuresOf(ctx.revision).resourceNotFoundCode);
      } else if (access && method === 'subscriptions/listen') {
        sent = await keptSubscriptions(params, (uri) => {
          const allowed = access.allows(caller, uri);
          if (!allowed) refused.push(uri);
          return allowed;
        });
        if (refused.length > 0) outcome = 'denied';
      } else if (limits && method === 'tools/call' && subject !== null) {
        const refused = await limits.take(caller, subject);
        if (refused) {
          outcome = 'rate_limited';
          const seconds = Math.ceil(refused.retryAfterMs / 1000);
          throw rateLimited(
            `Rate limited: at most ${refused.rule} for this tool; try again in ${seconds} s.`,
            { retryAfterMs: refused.retryAfterMs, limit: refused.limit },
          );
        }
      }
      // A call on behalf of its caller, and so its task's polls, answers and cancels: the upstream
      // keeps a task for the caller it ran for.
      const result = await (exchanges && (subject !== null || method.startsWith('tasks/'))
        ? onBehalfOf(ctx.auth, () => next(method, sent, ctx))
        : next(method, sent, ctx));
      if (outcome === 'ok' && (result as { isError?: unknown } | undefined)?.isError === true)
        outcome = 'error';
      return result;
    } catch (error) {
      if (outcome === 'ok') outcome = 'error';
      throw error;
    } finally {
      audit?.record({
        principal: caller?.name ?? null,
        client: ctx.client.info?.name ?? null,
        session: ctx.link.legacy?.session.id ?? null,
        method,
        // URIs hold no spaces, so the refused ones of a listen stay apart joined by one.
        name: refused.length > 0 ? refused.join(' ') : subject,
        upstream: upstreamOf(refused[0] ?? subject),
        outcome,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        argsDigest:
          method === 'tools/call' || method === 'prompts/get' ? argumentsDigest(params.arguments) : null,
      });
    }
  };
}
