/**
 * A scripted server for client tests: the test decides what each request gets back (or that it gets
 * nothing), and sees every frame the client sent.
 */
import type { Channel } from '../../src/engine/channel.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import type { Frame } from './wire.js';

/** `{ result }` or `{ error }` for a response, `undefined` for no answer at all. */
export type Answer =
  | { result: unknown }
  | { error: { code: number; message: string; data?: unknown } }
  | undefined;

export interface FakeServer {
  /** The client's end: pass it to `client.connect`. */
  readonly channel: Channel;
  /** Every frame the client sent, in order. */
  readonly received: Frame[];
  /** Requests the client sent with `method`. */
  requests(method: string): Frame[];
  /** Sends a frame to the client (a string verbatim). */
  send(frame: unknown): void;
  /** Closes the server's end (the client sees the connection close). */
  close(): Promise<void>;
}

export const legacyInit = (protocolVersion: string, capabilities: Record<string, unknown> = {}): Answer => ({
  result: { protocolVersion, capabilities, serverInfo: { name: 'fake', version: '1.0.0' } },
});

export const discoverResult = (extra: Record<string, unknown> = {}): Answer => ({
  result: {
    resultType: 'complete',
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {} },
    ttlMs: 0,
    cacheScope: 'public',
    ...extra,
  },
});

export function fakeServer(answer: (request: Frame) => Answer | Promise<Answer>): FakeServer {
  const [clientEnd, serverEnd] = createLinkedChannels();
  const received: Frame[] = [];
  const send = (frame: unknown) => serverEnd.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  serverEnd.start({
    message: async (value) => {
      const frames = Array.isArray(value) ? value : [value];
      for (const frame of frames as Frame[]) {
        received.push(frame);
        if (!('method' in frame) || !('id' in frame)) continue;
        const reply = await answer(frame);
        if (reply !== undefined) send({ jsonrpc: '2.0', id: frame.id, ...reply });
      }
    },
    malformed: () => undefined,
    closed: () => undefined,
  });
  return {
    channel: clientEnd,
    received,
    requests: (method) => received.filter((f) => f.method === method && 'id' in f),
    send,
    close: () => serverEnd.close(),
  };
}
