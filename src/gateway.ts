/**
 * `switchboard/gateway`: many MCP servers behind one endpoint (Node: it spawns stdio servers).
 * `loadGatewayConfig(file)` reads an `mcpServers` or VS Code `mcp.json` file; `new Gateway(config)`
 * is a Switchboard `Server` (`gateway.server`) to serve over any transport; `start()` connects the
 * upstreams, `close()` stops everything it started. The `switchboard gateway` command runs one.
 */

export {
  type CollisionPolicy,
  type GatewayConfig,
  type GatewayOptions,
  type HttpUpstreamConfig,
  type LoadOptions,
  type LoadResult,
  loadGatewayConfig,
  parseGatewayConfig,
  type Startup,
  type StdioUpstreamConfig,
  type UpstreamConfig,
} from './gateway/config.js';
export { type ConfigProblem, formatProblem } from './gateway/config-source.js';
export { Gateway, type GatewayRuntimeOptions } from './gateway/gateway.js';
export type { UpstreamHealth, UpstreamState } from './gateway/upstream.js';
