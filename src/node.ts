/**
 * `switchboard/node`: MCP over HTTP on Node — `serve(handler)` runs a `node:http` server,
 * `toNodeListener(handler)` mounts the handler in Express, Fastify or any `node:http` app.
 * Build the handler with `createHttpHandler(server)` from `switchboard`.
 */
export { type NodeListener, toNodeListener } from './node/listener.js';
export { type RunningServer, type ServeOptions, serve } from './node/serve.js';
