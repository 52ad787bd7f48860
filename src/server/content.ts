/** Helpers that build content blocks and tool results, so handlers read like what they return. */
import type {
  Annotations,
  AudioContent,
  BlobResourceContents,
  CallToolResult,
  EmbeddedResource,
  ImageContent,
  Meta,
  Resource,
  ResourceLink,
  TextContent,
  TextResourceContents,
} from '../protocol/types.js';
import { bytesToBase64 } from '../util/base64.js';

export interface BlockExtras {
  annotations?: Annotations;
  _meta?: Meta;
}

const base64 = (data: string | Uint8Array): string => (typeof data === 'string' ? data : bytesToBase64(data));

export const text = (value: string, extras?: BlockExtras): TextContent => ({
  type: 'text',
  text: value,
  ...extras,
});

/** `data` is raw bytes or an already base64-encoded string. */
export const image = (data: string | Uint8Array, mimeType: string, extras?: BlockExtras): ImageContent => ({
  type: 'image',
  data: base64(data),
  mimeType,
  ...extras,
});

export const audio = (data: string | Uint8Array, mimeType: string, extras?: BlockExtras): AudioContent => ({
  type: 'audio',
  data: base64(data),
  mimeType,
  ...extras,
});

/** Text or binary contents of a resource (binary is base64-encoded for you). */
export function resourceContents(
  uri: string,
  body: string | Uint8Array,
  mimeType?: string,
): TextResourceContents | BlobResourceContents {
  const contents = typeof body === 'string' ? { uri, text: body } : { uri, blob: bytesToBase64(body) };
  return mimeType === undefined ? contents : { ...contents, mimeType };
}

export const embeddedResource = (
  contents: TextResourceContents | BlobResourceContents,
  extras?: BlockExtras,
): EmbeddedResource => ({ type: 'resource', resource: contents, ...extras });

export const resourceLink = (resource: Resource): ResourceLink => ({ type: 'resource_link', ...resource });

/** A failed tool call the model can read and act on (not a protocol error). */
export const toolError = (message: string): CallToolResult & { isError: true } => ({
  content: [{ type: 'text', text: message }],
  isError: true,
});
