/**
 * Connects a Switchboard Client to an HTTP server through the channel under test, with every frame
 * the client sends checked against its revision's schema (the server's only reported: official
 * SDKs are not ours to fix).
 */

import type { Channel } from '../../../src/engine/channel.js';
import { Client, type ClientOptions } from '../../../src/extensions/client.js';
import { nodeFetch } from '../../../src/node/fetch.js';
import { loadSchemaCatalog } from '../../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../../src/testing/schema-checked-channel.js';
import type { FetchLike } from '../../../src/transports/http/client/fetch-like.js';
import {
  StreamableHttpClientChannel,
  type StreamableHttpClientChannelOptions,
} from '../../../src/transports/http/client/streamable-channel.js';

/** The fetches the channels are tested with: the runtime's, and nodeFetch. */
export const FETCHES: readonly (readonly [string, FetchLike | undefined])[] = [
  ['global fetch', undefined],
  ['nodeFetch', nodeFetch],
];

export interface HttpConnection {
  client: Client;
  channel: StreamableHttpClientChannel;
  checked: SchemaCheckedChannel;
  warnings: string[];
  /** Throws if a frame the client sent broke its revision's schema. */
  assertClean(): void;
  close(): Promise<void>;
}

export async function connectHttp(
  url: string,
  clientOptions: ClientOptions = {},
  channelOptions: StreamableHttpClientChannelOptions = {},
): Promise<HttpConnection> {
  const warnings: string[] = [];
  const channel = new StreamableHttpClientChannel(url, {
    onwarning: (message) => warnings.push(message),
    ...channelOptions,
  });
  const checked = await checkedChannel(channel);
  const client = new Client(
    { name: 'http-test', version: '1.0.0' },
    { probeTimeoutMs: 5000, ...clientOptions },
  );
  await client.connect(checked);
  return {
    client,
    channel,
    checked,
    warnings,
    assertClean: () => checked.assertClean(),
    close: () => client.close(),
  };
}

export async function checkedChannel(channel: Channel): Promise<SchemaCheckedChannel> {
  return new SchemaCheckedChannel(channel, {
    catalog: await loadSchemaCatalog(),
    side: 'client',
    peer: 'report',
  });
}
