/**
 * `switchboard/console`: the web console (`switchboard console`) as a library: `serveConsole()`
 * serves the page and its API on 127.0.0.1, guarded by a token. Node only. See docs/console.md.
 */
export type {
  ConnectionSummary,
  ConnectRequest,
  ConnectTarget,
  ConsoleEvent,
} from './console/api-types.js';
export { type ConsoleOptions, type RunningConsole, serveConsole } from './console/serve.js';
