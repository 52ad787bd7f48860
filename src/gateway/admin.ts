/**
 * The gateway's admin endpoint (`gateway.admin`), on the listener of its MCP endpoint:
 *
 *   GET  /admin/pins           the tools and skills held back (`--lock`), each with its pinned and new definition
 *   POST /admin/pins/approve   { "name": "..." }: pins its new definition (every node's, with `gateway.redis`)
 *   POST /admin/check          { "server": "..." }: runs the checker on that server's config entry
 *
 * It can make a changed tool callable and start programs, so a request must pass, in order: the
 * listener's Host/Origin rules (the same {@link OriginGuard} as `/mcp` and `/readyz`), no
 * cross-site fetch (`Sec-Fetch-Site`), the admin token in `X-Switchboard-Admin-Token` when
 * `admin.token` is set (required without `gateway.auth`), and with `gateway.auth` the caller's
 * credentials as at `/mcp` (401) naming a principal of `admin.principals` (403 otherwise). POST
 * bodies must be `application/json`, which no cross-site form can send.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeExchange, writeReply } from '../node/exchange.js';
import type { HttpAuthenticator } from '../transports/http/server/authenticator.js';
import { errorReply } from '../transports/http/server/exchange.js';
import { OriginGuard, type OriginPolicy } from '../transports/http/server/security.js';
import { errorMessage, isPlainObject } from '../util/guards.js';
import { namesCaller } from './access.js';
import { ApiKeys } from './api-keys.js';
import type { AuditLog, AuditOutcome } from './audit.js';
import { type Caller, callerOf } from './caller.js';
import type { GatewayConfig, UpstreamConfig } from './config.js';
import type { Gateway } from './gateway.js';
import { reply } from './health-endpoints.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The header the admin token is sent in. */
export const ADMIN_TOKEN_HEADER = 'x-switchboard-admin-token';

/** Runs the checker on one server's config entry; resolves to its result (JSON), never rejects for the server's faults. */
export type CheckServer = (upstream: UpstreamConfig) => Promise<unknown>;

export interface AdminOptions {
  /** The front door (`gateway.auth`): who the caller is. */
  readonly authenticator?: HttpAuthenticator;
  /** What `POST /admin/check` runs; without it the route answers 501. */
  readonly check?: CheckServer;
  /** Told of every approval and check, with who asked. */
  readonly log?: (message: string, extra: Record<string, unknown>) => void;
  /** `gateway.audit`: every admin request is a line of the chain, refused ones included. */
  readonly audit?: AuditLog;
}

/** What a request's audit line says beyond its method: filled in as the request is understood. */
interface AdminRecord {
  principal: string | null;
  /** The held tool or skill approved, or the server checked. */
  name: string | null;
  upstream: string | null;
  /** Refused by the front door, which records its refusals itself. */
  door?: boolean;
}

/** A held tool or skill as `GET /admin/pins` lists it. */
export interface HeldItem {
  readonly kind: 'tool' | 'skill';
  readonly name: string;
  readonly pinned: { readonly hash: string; readonly definition?: unknown };
  readonly found: { readonly hash: string; readonly definition: unknown };
}

const MAX_BODY_BYTES = 64 * 1024;

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** `next` (the health paths and the MCP endpoint) with the admin paths in front of it, behind `policy`. */
export function withAdminEndpoints(
  next: Listener,
  gateway: Gateway,
  config: GatewayConfig,
  policy: OriginPolicy,
  options: AdminOptions = {},
): Listener {
  const guard = new OriginGuard(policy);
  const admin = config.security.admin;
  const token = admin?.token === undefined ? undefined : new ApiKeys({ admin: admin.token });
  // One check of a server at a time: a second request for it waits for the same result.
  const checking = new Map<string, Promise<unknown>>();

  async function authorize(
    req: IncomingMessage,
    exchange: NodeExchange,
    record: AdminRecord,
  ): Promise<Caller | undefined> {
    if (!admin)
      throw new Refused(
        404,
        'This gateway has no admin endpoint: add "admin" to "gateway" in its config (see docs/gateway.md, "The admin endpoint").',
      );
    if (token) {
      const given = req.headers[ADMIN_TOKEN_HEADER];
      if (typeof given !== 'string' || token.principal(given) === undefined)
        throw new Refused(
          401,
          given === undefined
            ? `The admin endpoint needs the admin token in ${ADMIN_TOKEN_HEADER} (gateway.admin.token).`
            : `The token in ${ADMIN_TOKEN_HEADER} is not this gateway's gateway.admin.token: send that one.`,
        );
    }
    if (config.security.auth === undefined) return undefined;
    // With gateway.auth, nobody is an admin without the front door saying who they are.
    if (!options.authenticator)
      throw new Refused(500, 'The admin endpoint was set up without the front door of gateway.auth.');
    const verdict = await options.authenticator.authenticate(exchange);
    if ('status' in verdict) {
      record.door = true;
      throw verdict;
    }
    const caller = callerOf(verdict);
    record.principal = caller?.name ?? null;
    if (!namesCaller(admin.principals, caller))
      throw new Refused(
        403,
        `${caller?.name ?? 'This caller'} is not an admin of this gateway (gateway.admin.principals).`,
      );
    return caller;
  }

  async function route(
    req: IncomingMessage,
    res: ServerResponse,
    exchange: NodeExchange,
    record: AdminRecord,
  ): Promise<void> {
    const caller = await authorize(req, exchange, record);
    const who = { principal: caller?.name ?? null };
    const path = exchange.path;
    if (path === '/admin/pins' && req.method === 'GET') {
      const held: HeldItem[] = (gateway.pins?.pending() ?? []).map((p) => ({
        kind: p.kind,
        name: p.name,
        pinned: { hash: p.pinned, ...(p.pinnedDefinition ? { definition: p.pinnedDefinition } : {}) },
        found: { hash: p.found, definition: p.foundDefinition },
      }));
      return reply(res, 200, { ...(gateway.pins ? { lock: gateway.pins.file } : {}), held });
    }
    if (path === '/admin/pins/approve' && req.method === 'POST') {
      const { name } = await readJson(req, exchange);
      if (typeof name !== 'string') throw new Refused(400, 'Send { "name": "<held tool or skill>" }.');
      record.name = name;
      if (!gateway.pins) throw new Refused(404, 'This gateway pins nothing: it runs without --lock.');
      if (!gateway.pins.pending().some((p) => p.name === name))
        throw new Refused(
          404,
          `${name} is not waiting for approval: GET /admin/pins lists the tools and skills held.`,
        );
      const approved = await gateway.approve([name]);
      options.log?.('admin: approved', { ...who, name, hash: approved[0]?.found });
      return reply(res, 200, {
        approved: approved.map((p) => ({ kind: p.kind, name: p.name, hash: p.found })),
      });
    }
    if (path === '/admin/check' && req.method === 'POST') {
      const { server } = await readJson(req, exchange);
      if (typeof server !== 'string') throw new Refused(400, 'Send { "server": "<server name>" }.');
      record.name = server;
      const upstream = gateway.config.upstreams.find((u) => u.name === server);
      if (!upstream) throw new Refused(404, `The gateway has no server ${JSON.stringify(server)}.`);
      record.upstream = server;
      if (!options.check)
        throw new Refused(501, 'This gateway cannot run checks (it was not started by the CLI).');
      let running = checking.get(server);
      if (!running) {
        options.log?.('admin: checking', { ...who, server });
        running = options.check(upstream).finally(() => checking.delete(server));
        checking.set(server, running);
      }
      return reply(res, 200, await running);
    }
    throw new Refused(404, `No admin route ${req.method} ${path}.`);
  }

  /** The audit line of one admin request, by the status it was answered with. */
  function audited(req: IncomingMessage, path: string, started: number, record: AdminRecord, status: number) {
    if (record.door) return;
    const outcome: AuditOutcome =
      status < 400 ? 'ok' : status === 401 ? 'unauthenticated' : status === 403 ? 'denied' : 'error';
    const { principal, name, upstream } = record;
    options.audit?.record({
      principal,
      name,
      upstream,
      client: null,
      session: null,
      method: `${req.method} ${path}`,
      outcome,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      argsDigest: null,
    });
  }

  return (req, res) => {
    const path = req.url?.split('?')[0];
    if (path !== '/admin' && !path?.startsWith('/admin/')) return next(req, res);
    const started = performance.now();
    const record: AdminRecord = { principal: null, name: null, upstream: null };
    // Recorded once answered, whoever answered it (a refusal here, the route, its error).
    if (options.audit) res.once('close', () => audited(req, path, started, record, res.statusCode));
    const exchange = new NodeExchange(req, res);
    const forbidden = guard.check(exchange);
    if (forbidden) return writeReply(res, errorReply(403, forbidden));
    if (req.headers['sec-fetch-site'] === 'cross-site')
      return writeReply(
        res,
        errorReply(403, 'Forbidden: cross-site requests to the admin endpoint are refused.'),
      );
    route(req, res, exchange, record).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (error instanceof Refused) return reply(res, error.status, { error: error.message });
      if (isPlainObject(error) && typeof error.status === 'number') return writeReply(res, error as never);
      reply(res, 500, { error: `The admin endpoint failed: ${errorMessage(error)}` });
    });
  };
}

async function readJson(req: IncomingMessage, exchange: NodeExchange): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new Refused(415, `Send the body as application/json (got ${JSON.stringify(type)}).`);
  const body = await exchange.readBody(MAX_BODY_BYTES);
  if (body.kind !== 'text') throw new Refused(400, `The body could not be read (${body.kind}).`);
  try {
    const value: unknown = JSON.parse(body.text);
    if (isPlainObject(value)) return value;
  } catch {}
  throw new Refused(400, 'The body is not a JSON object.');
}
