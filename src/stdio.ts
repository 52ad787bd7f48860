/**
 * `switchboard/stdio`: MCP over a child process's stdin/stdout (Node only).
 * The newline-delimited JSON framing is exported too, for custom byte-stream transports.
 */
export { DEFAULT_INHERITED_ENV_VARS } from './transports/stdio/child-env.js';
export {
  type ChildExit,
  type StderrHandling,
  StdioClientChannel,
  type StdioClientChannelOptions,
} from './transports/stdio/client-channel.js';
export type { SendErrorHandler } from './transports/stdio/frame-writer.js';
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  encodeFrame,
  JsonLineDecoder,
  type JsonLineDecoderOptions,
  type JsonLineSink,
} from './transports/stdio/framing.js';
export { type ServeStdioOptions, serveStdio } from './transports/stdio/serve.js';
export { StdioServerChannel, type StdioServerChannelOptions } from './transports/stdio/server-channel.js';
