/**
 * The 2026-07-28 envelope serialized once: a request with its envelope's JSON spliced in is byte for
 * byte the request serialized whole, and what the peer reports of it (the frame's info) carries it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Channel, ChannelSink, FrameInfo } from '../../src/engine/channel.js';
import { Peer } from '../../src/engine/peer.js';
import { requestFrame, SerializedMeta } from '../../src/protocol/frames.js';

type Json = Record<string, unknown>;

const params = fc.dictionary(
  fc.string().filter((key) => key !== '_meta'),
  fc.jsonValue(),
) as fc.Arbitrary<Json>;
const meta = fc.dictionary(fc.string(), fc.jsonValue()) as fc.Arbitrary<Json>;

/** A peer whose channel records what is sent and never answers. */
function recordingPeer() {
  const sent: { frame: string; info: FrameInfo | undefined }[] = [];
  const channel: Channel = {
    start: (_sink: ChannelSink) => {},
    send: (frame, info) => sent.push({ frame, info }),
    close: () => Promise.resolve(),
  };
  const peer = new Peer(channel, { request: () => ({}), notification: () => {} });
  peer.start();
  return { peer, sent };
}

describe('the envelope serialized once', () => {
  test('a request with its envelope spliced in is the same bytes as the whole request serialized', () => {
    fc.assert(
      fc.property(fc.nat(), fc.string(), params, meta, (id, method, own, envelope) => {
        const spliced = requestFrame(id, method, own, new SerializedMeta(envelope));
        assert.equal(spliced, requestFrame(id, method, { ...own, _meta: envelope }));
      }),
      { numRuns: 500 },
    );
    assert.equal(
      requestFrame(1, 'server/discover', undefined, new SerializedMeta({ a: 1 })),
      '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"a":1}}}',
    );
  });

  test("the peer sends the spliced request, reports the whole params in the frame's info, and merges a progress token into the envelope", () => {
    fc.assert(
      fc.property(params, meta, fc.boolean(), (own, envelope, progress) => {
        const { peer, sent } = recordingPeer();
        const serialized = new SerializedMeta(Object.freeze(envelope));
        const options = progress ? { onprogress: () => {}, timeoutMs: Infinity } : { timeoutMs: Infinity };
        void peer.request('tools/call', own, options, serialized).catch(() => {});
        const [{ frame, info }] = sent as [(typeof sent)[0]];
        const message = JSON.parse(frame) as { id: number };
        const expected = progress
          ? { ...own, _meta: { ...envelope, progressToken: message.id } }
          : { ...own, _meta: envelope };
        // Compared as JSON: fast-check's objects may have no prototype, parsed ones do.
        const whole = { jsonrpc: '2.0', id: message.id, method: 'tools/call', params: expected };
        assert.equal(frame, JSON.stringify(whole));
        assert.equal(
          JSON.stringify(info?.kind === 'request' ? info.params : undefined),
          JSON.stringify(expected),
        );
        void peer.close();
      }),
      { numRuns: 200 },
    );
  });
});
