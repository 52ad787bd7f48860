/**
 * `switchboard/node`: MCP over HTTP on Node — `serve(handler)` runs a `node:http` server,
 * `toNodeListener(handler)` mounts the handler in Express, Fastify or any `node:http` app.
 * Build the handler with `createHttpHandler(server)` from `switchboard`.
 */

// A fetch over node:http keep-alive, for the HTTP client channels (Node 20's global fetch costs
// several times more per request).
export { createNodeFetch, type NodeFetchOptions, nodeFetch } from './node/fetch.js';
export { type NodeListener, toNodeListener } from './node/listener.js';
export { type RunningServer, type ServeOptions, serve } from './node/serve.js';
export { configDirectory, FileTokenStore } from './node/token-store.js';
