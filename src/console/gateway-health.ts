/**
 * The servers behind a `switchboard gateway`: its `/readyz` (beside its `/mcp` endpoint) lists each
 * upstream with its state, and the separator of its namespaced names. The console's Node side reads
 * it (the page talks only to the console), when a connection's server says it is a gateway.
 */
import { errorMessage, isPlainObject } from '../util/guards.js';
import type { GatewayView, UpstreamView } from './api-types.js';

/** The name a `switchboard gateway` gives itself in `serverInfo`. */
export const GATEWAY_SERVER_NAME = 'switchboard-gateway';
/** A gateway that does not answer its health check at once is reported, not waited for. */
const HEALTH_TIMEOUT_MS = 5_000;

/** Reads the health of the gateway whose MCP endpoint is `endpoint`; never throws (the view says what failed). */
export async function readGatewayHealth(endpoint: string): Promise<GatewayView> {
  const healthUrl = new URL('/readyz', endpoint).href;
  const failed = (error: string): GatewayView => ({ healthUrl, checkedAt: Date.now(), upstreams: [], error });
  let body: unknown;
  try {
    // 503 (not every upstream is up) carries the same body as 200.
    const response = await fetch(healthUrl, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    body = await response.json();
  } catch (error) {
    return failed(`The gateway's health could not be read from ${healthUrl}: ${errorMessage(error)}`);
  }
  if (!isPlainObject(body) || !Array.isArray(body.upstreams))
    return failed(`${healthUrl} did not answer a gateway's health report (no "upstreams" list).`);
  return {
    healthUrl,
    checkedAt: Date.now(),
    upstreams: body.upstreams.filter(isPlainObject).flatMap(upstreamOf),
    ...(typeof body.ready === 'boolean' ? { ready: body.ready } : {}),
    ...(typeof body.separator === 'string' ? { separator: body.separator } : {}),
    ...(Array.isArray(body.heldTools)
      ? { heldTools: body.heldTools.filter((t): t is string => typeof t === 'string') }
      : {}),
  };
}

function upstreamOf(entry: Record<string, unknown>): UpstreamView[] {
  if (typeof entry.name !== 'string' || typeof entry.state !== 'string') return [];
  const text = (key: string) => (typeof entry[key] === 'string' ? { [key]: entry[key] as string } : {});
  const count = (key: string) => (typeof entry[key] === 'number' ? { [key]: entry[key] as number } : {});
  return [
    {
      name: entry.name,
      state: entry.state,
      ...text('transport'),
      ...text('revision'),
      ...text('lastError'),
      ...count('restarts'),
      ...count('sessions'),
    },
  ];
}
