/**
 * The two legacy clients the cluster tests drive, behind one small interface: the official SDK v1
 * client (StreamableHTTPClientTransport) and Switchboard's, both answering elicitations with "Ada"
 * and recording the `resources/updated` notifications they hear; and a {@link Valve} to lose what a
 * client's GET streams carry, as a network does when a node dies.
 */
import assert from 'node:assert/strict';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

/** What one client session needs from the test: the same steps for both clients. */
export interface LegacyClient {
  readonly sessionId: () => string | undefined;
  callTool(name: string, args?: Record<string, unknown>): Promise<string>;
  subscribe(uri: string): Promise<void>;
  readonly updates: string[];
  close(): Promise<void>;
}

async function sdkV1Client(url: string, fetch?: typeof globalThis.fetch): Promise<LegacyClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {});
  const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
  const updates: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri);
  });
  await client.connect(transport);
  assert.equal(transport.protocolVersion, '2025-11-25');
  return {
    sessionId: () => transport.sessionId,
    callTool: async (name, args = {}) => textOf(await client.callTool({ name, arguments: args })),
    subscribe: async (uri) => void (await client.subscribeResource({ uri })),
    updates,
    async close() {
      await transport.terminateSession();
      await client.close();
    },
  };
}

async function switchboardClient(url: string, fetch?: typeof globalThis.fetch): Promise<LegacyClient> {
  const client = new Client({ name: 'switchboard', version: '1.0.0' }, { version: 'legacy' });
  client.onElicitation(() => ({ action: 'accept', content: { name: 'Ada' } }));
  const updates: string[] = [];
  client.on('notifications/resources/updated', (params) => updates.push(String(params?.uri)));
  const channel = new StreamableHttpClientChannel(url, { fetch: fetch ?? nodeFetch, rememberEra: false });
  await client.connect(channel);
  assert.equal(client.revision, '2025-11-25');
  return {
    sessionId: () => channel.sessionId,
    callTool: async (name, args = {}) => textOf(await client.callTool(name, args)),
    subscribe: async (uri) => void (await client.request('resources/subscribe', { uri })),
    updates,
    close: () => client.close(),
  };
}

export const LEGACY_CLIENTS = [
  ['the official SDK v1 client', sdkV1Client],
  ["Switchboard's client", switchboardClient],
] as const;

/**
 * A fetch (for either client) whose GET streams can be made to lose what they carry from now on:
 * the bytes a node sent before it died that never reached the client. Later responses are whole.
 */
export class Valve {
  readonly #streams = new Set<{ lossy: boolean }>();
  /** Chunks lost so far. */
  lost = 0;

  /** Every GET stream open now loses what it carries from here on. */
  close(): void {
    for (const stream of this.#streams) stream.lossy = true;
  }

  readonly fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if ((init?.method ?? 'GET') !== 'GET' || !response.body) return response;
    const reader = response.body.getReader();
    const state = { lossy: false };
    this.#streams.add(state);
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        for (;;) {
          const { done, value } = await reader.read().catch((error: unknown) => {
            this.#streams.delete(state);
            throw error;
          });
          if (done) {
            this.#streams.delete(state);
            controller.close();
            return;
          }
          if (!state.lossy) {
            controller.enqueue(value);
            return;
          }
          this.lost++;
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
}
