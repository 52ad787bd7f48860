/**
 * A hand-driven client for a Switchboard server: a bare Peer in memory, so a test can send exactly
 * the frames it wants (a forged requestState, a stale cancellation) and see every frame the server
 * sends. The server's frames are schema-checked; `setAuth` makes the next messages arrive as
 * authenticated by a transport.
 */
import type { AuthInfo, Channel, ChannelSink } from '../../src/engine/channel.js';
import { type InboundRequest, Peer } from '../../src/engine/peer.js';
import type { Server } from '../../src/extensions/server.js';
import type { Params } from '../../src/protocol/jsonrpc.js';
import { META } from '../../src/protocol/meta.js';
import type { ClientCapabilities } from '../../src/protocol/types.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { createLinkedChannels } from '../../src/transports/memory.js';

export interface RawSession {
  readonly peer: Peer;
  /** Every frame the server sent, parsed, in order. */
  readonly fromServer: unknown[];
  /** Authenticates the messages that follow (undefined: none). */
  setAuth(auth: AuthInfo | undefined): void;
  /** Sends a 2026-07-28 request with the `_meta` envelope. */
  modern(
    method: string,
    params?: Params,
    capabilities?: ClientCapabilities,
  ): Promise<Record<string, unknown>>;
  assertClean(): void;
  close(): Promise<void>;
}

export const envelope = (capabilities: ClientCapabilities = {}) => ({
  [META.protocolVersion]: '2026-07-28',
  [META.clientCapabilities]: capabilities,
  [META.clientInfo]: { name: 'raw', version: '1' },
});

/** Delivers each inbound message with the auth of the moment; taps outbound frames. */
class AuthTapChannel implements Channel {
  auth: AuthInfo | undefined;
  constructor(
    private readonly inner: Channel,
    private readonly tap: (frame: string) => void,
  ) {}
  start(sink: ChannelSink): void {
    this.inner.start({
      message: (value) => sink.message(value, this.auth ? { auth: this.auth } : undefined),
      malformed: (error) => sink.malformed(error),
      closed: (error) => sink.closed(error),
    });
  }
  send(frame: string, info?: Parameters<Channel['send']>[1]): void {
    this.tap(frame);
    this.inner.send(frame, info);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

export async function rawSession(
  server: Server,
  onRequest: (request: InboundRequest) => unknown = () => ({}),
): Promise<RawSession> {
  const [clientEnd, serverEnd] = createLinkedChannels();
  const fromServer: unknown[] = [];
  const checked = new SchemaCheckedChannel(serverEnd, {
    catalog: await loadSchemaCatalog(),
    side: 'server',
    peer: 'ignore',
    label: 'server',
  });
  const tapped = new AuthTapChannel(checked, (frame) => fromServer.push(JSON.parse(frame)));
  server.connect(tapped);
  const peer = new Peer(clientEnd, { request: onRequest, notification: () => undefined });
  peer.start();
  return {
    peer,
    fromServer,
    setAuth: (auth) => {
      tapped.auth = auth;
    },
    modern: (method, params = {}, capabilities = {}) =>
      peer.request(method, { ...params, _meta: { ...(params._meta as object), ...envelope(capabilities) } }),
    assertClean: () => checked.assertClean(),
    close: () => peer.close(),
  };
}
