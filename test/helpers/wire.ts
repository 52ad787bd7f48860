/**
 * Raw wire access to a {@link Server}: the test plays the client by hand, sending exact frames
 * (malformed ones included) and reading exactly what comes back. Frames are delivered in order by
 * the in-memory channel, so {@link Wire.quiet} can prove that nothing was answered: it sends a fence
 * `ping` and checks that the fence's answer is the very next frame.
 */
import assert from 'node:assert/strict';
import type { ChannelSink } from '../../src/engine/channel.js';
import type { Server } from '../../src/extensions/server.js';
import { META } from '../../src/protocol/meta.js';
import type { Revision } from '../../src/protocol/revisions.js';
import type { ServerConnection } from '../../src/server/connection.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { createLinkedChannels } from '../../src/transports/memory.js';

export type Frame = Record<string, any>;

export interface Wire {
  /** Sends one frame: a string goes out verbatim, anything else as its JSON. */
  send(frame: unknown): void;
  /** The next frame the server sent (fails after `timeoutMs`). */
  next(timeoutMs?: number): Promise<any>;
  /** Sends a request and returns its response; notifications that came first land in `notifications`. */
  request(method: string, params?: Record<string, unknown>, id?: string | number): Promise<Frame>;
  /** Sends a 2026-07-28 request with the `_meta` envelope and returns its response. */
  modern(method: string, params?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Frame>;
  /** `initialize` + `notifications/initialized`; returns the initialize result. */
  initialize(revision: Revision | string, capabilities?: Record<string, unknown>): Promise<Frame>;
  /** Asserts the server sends nothing more before answering a fence ping. */
  quiet(): Promise<void>;
  /** Notifications received while waiting for responses in {@link request}. */
  readonly notifications: Frame[];
  readonly connection: ServerConnection;
  /** Throws if a frame the server sent broke its revision's schema (needs `check: true`). */
  assertClean(): void;
  close(): Promise<void>;
}

export const MODERN = '2026-07-28';

/** The 2026-07-28 `_meta` envelope. */
export function envelope(
  extra: Record<string, unknown> = {},
  version: string = MODERN,
): Record<string, unknown> {
  return {
    [META.protocolVersion]: version,
    [META.clientCapabilities]: {},
    [META.clientInfo]: { name: 'wire', version: '1.0.0' },
    ...extra,
  };
}

export interface WireOptions {
  /** Check the server's frames against the official schemas (only meaningful once a revision is known). */
  check?: boolean;
}

export async function openWire(server: Server, options: WireOptions = {}): Promise<Wire> {
  const [clientEnd, serverEnd] = createLinkedChannels();
  const checked = options.check
    ? new SchemaCheckedChannel(serverEnd, {
        catalog: await loadSchemaCatalog(),
        side: 'server',
        peer: 'ignore',
        label: 'server',
      })
    : undefined;
  const connection = server.connect(checked ?? serverEnd);
  const inbox: unknown[] = [];
  const waiters: ((frame: unknown) => void)[] = [];
  const deliver = (frame: unknown) => {
    const waiter = waiters.shift();
    if (waiter) waiter(frame);
    else inbox.push(frame);
  };
  const sink: ChannelSink = {
    message: deliver,
    malformed: (error) => deliver({ malformed: error.message }),
    closed: () => undefined,
  };
  clientEnd.start(sink);
  let nextId = 1;
  let fences = 0;
  const notifications: Frame[] = [];

  // Generous: a frame that is coming may take seconds on a loaded 2-core machine (a 1000-call batch
  // is served 64 calls per event-loop turn); the limit only ends a test whose frame never comes.
  const next = (timeoutMs = 30_000): Promise<any> => {
    if (inbox.length > 0) return Promise.resolve(inbox.shift());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no frame from the server within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (frame: unknown) => {
        clearTimeout(timer);
        resolve(frame);
      };
      waiters.push(waiter);
    });
  };
  const send = (frame: unknown) => clientEnd.send(typeof frame === 'string' ? frame : JSON.stringify(frame));

  async function request(method: string, params?: Record<string, unknown>, id?: string | number) {
    const requestId = id ?? nextId++;
    send({ jsonrpc: '2.0', id: requestId, method, ...(params === undefined ? {} : { params }) });
    for (;;) {
      const frame = await next();
      if (
        frame &&
        typeof frame === 'object' &&
        !Array.isArray(frame) &&
        'method' in frame &&
        !('id' in frame)
      ) {
        notifications.push(frame);
        continue;
      }
      assert.equal(
        frame?.id,
        requestId,
        `expected the response to ${requestId}, got ${JSON.stringify(frame)}`,
      );
      return frame;
    }
  }

  return {
    send,
    next,
    request,
    notifications,
    connection,
    modern: (method, params = {}, meta = {}) =>
      request(method, { ...params, _meta: { ...envelope(), ...meta } }),
    async initialize(revision, capabilities = {}) {
      const response = await request('initialize', {
        protocolVersion: revision,
        capabilities,
        clientInfo: { name: 'wire', version: '1.0.0' },
      });
      assert.ok(response.result, `initialize failed: ${JSON.stringify(response)}`);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return response.result;
    },
    async quiet() {
      const id = `fence-${++fences}`;
      send({ jsonrpc: '2.0', id, method: 'ping' });
      const frame = await next();
      assert.equal(frame?.id, id, `expected nothing before the fence, got ${JSON.stringify(frame)}`);
    },
    assertClean() {
      assert.ok(checked, 'openWire(server, { check: true }) is needed for assertClean()');
      checked.assertClean();
    },
    close: () => clientEnd.close(),
  };
}
