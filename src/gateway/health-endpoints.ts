/**
 * The gateway listener's own paths beside the MCP endpoint: `GET /healthz` (the process serves),
 * `GET /readyz` (each upstream's state, and whether the gateway is ready) and `GET /metrics`
 * (Prometheus). They answer only requests that pass the MCP endpoint's own Host/Origin rules (the
 * same {@link OriginPolicy}, checked by the same {@link OriginGuard}): a page on another origin, or
 * one that rebound its name to the gateway's address, gets the same 403 there as at `/mcp`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeExchange, writeReply } from '../node/exchange.js';
import { errorReply } from '../transports/http/server/exchange.js';
import { OriginGuard, type OriginPolicy } from '../transports/http/server/security.js';
import { errorMessage } from '../util/guards.js';
import type { GatewayConfig } from './config.js';
import type { Gateway } from './gateway.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** `mcp` (the MCP handler's listener) with the health paths in front of it, behind `policy`. */
export function withHealthEndpoints(
  mcp: Listener,
  gateway: Gateway,
  config: GatewayConfig,
  policy: OriginPolicy,
): Listener {
  const guard = new OriginGuard(policy);
  return (req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method !== 'GET' || (path !== '/healthz' && path !== '/readyz' && path !== '/metrics')) {
      return mcp(req, res);
    }
    const forbidden = guard.check(new NodeExchange(req, res));
    if (forbidden) return writeReply(res, errorReply(403, forbidden));
    if (path === '/healthz') return reply(res, 200, { status: 'up' });
    if (path === '/readyz') {
      const { ready, notUp } = gateway.readiness();
      const pending = gateway.pins?.pending() ?? [];
      const held = pending.filter((p) => p.kind === 'tool').map((p) => p.name);
      const heldSkills = pending.filter((p) => p.kind === 'skill').map((p) => p.name);
      return reply(res, ready ? 200 : 503, {
        ready,
        notUp,
        upstreams: gateway.health(),
        ...(held.length > 0 ? { heldTools: held } : {}),
        ...(heldSkills.length > 0 ? { heldSkills } : {}),
        // How a client (the console) tells which upstream a tool or prompt name belongs to.
        separator: config.options.separator,
      });
    }
    void gateway.telemetry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': gateway.telemetry.contentType, 'cache-control': 'no-store' });
        res.end(text);
      },
      (error: unknown) => reply(res, 500, { error: errorMessage(error) }),
    );
  };
}

/** A JSON answer that no cache keeps. */
export function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
