/**
 * `switchboard/http`: MCP clients over HTTP, runtime-neutral (any `fetch`).
 * - {@link StreamableHttpClientChannel}: Streamable HTTP in both eras (2026-07-28 per-request POSTs;
 *   2025 sessions with resumable streams), falling back to HTTP+SSE when that is all the server has.
 * - {@link SseClientChannel}: the 2024-11-05 HTTP+SSE transport alone.
 */

export {
  decodeHeaderValue,
  encodeHeaderValue,
  type HeaderParam,
  scanToolHeaders,
  type ToolHeaderScan,
} from './protocol/mcp-headers.js';
export {
  defaultHttpEraStore,
  forgetHttpEras,
  type HttpEra,
  type HttpEraStore,
  MemoryHttpEraStore,
} from './transports/http/client/era-store.js';
export type {
  ByteReaderLike,
  ByteStreamLike,
  FetchCancel,
  FetchLike,
  RequestInitLike,
  ResponseLike,
} from './transports/http/client/fetch-like.js';
export type {
  HeadersSource,
  HttpClientChannelOptions,
  ReconnectOptions,
} from './transports/http/client/options.js';
export { SseClientChannel, type SseClientChannelOptions } from './transports/http/client/sse-channel.js';
export {
  type HttpTransportChoice,
  StreamableHttpClientChannel,
  type StreamableHttpClientChannelOptions,
} from './transports/http/client/streamable-channel.js';
