import { Client, createHttpHandler, type EventStore, MemoryEventStore, Server } from 'switchboard';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch, serve } from 'switchboard/node';

// An EventStore keeps the SSE events legacy sessions send, so that a client which lost a stream
// resumes it with Last-Event-ID. This one wraps the default, in-memory store to show its calls
// (event ids are <stream>-<seq>; stream 0 is the session's GET stream, 1.. one per POST).
const memory = new MemoryEventStore({ maxEventsPerSession: 1000, maxBytesPerSession: 4 * 1024 * 1024 });
const calls = { appended: [] as string[], replayedAfter: [] as string[], deleted: 0 };
const store: EventStore = {
  append(sessionId, streamId, event) {
    calls.appended.push(`${streamId}-${event.seq}`);
    return memory.append(sessionId, streamId, event);
  },
  replay(sessionId, streamId, afterSeq) {
    calls.replayedAfter.push(`${streamId}-${afterSeq}`);
    return memory.replay(sessionId, streamId, afterSeq);
  },
  deleteSession(sessionId) {
    calls.deleted++;
    return memory.deleteSession(sessionId);
  },
};

const server = new Server({ name: 'reports', version: '1.0.0' });
server.registerTool('report', {}, async (_args, ctx) => {
  // Long work on 2025-11-25: end the HTTP response now rather than hold it open (SEP-1699).
  // The client reconnects after the stream's retry delay and receives the result from the store.
  console.log('stream closed:', ctx.closeSseStream());
  await new Promise((resolve) => setTimeout(resolve, 200));
  return 'report ready';
});
const running = await serve(createHttpHandler(server, { eventStore: store, retryMs: 20 }));

const client = new Client({ name: 'docs', version: '1.0.0' }, { version: 'legacy' });
await client.connect(new StreamableHttpClientChannel(running.url, { fetch: nodeFetch }));
console.log((await client.callTool('report')).content);
await client.close();
await running.close();
console.log(calls);

// Output:
// stream closed: true
// [ { type: 'text', text: 'report ready' } ]
// { appended: [ '1-1' ], replayedAfter: [ '0-0', '1-0' ], deleted: 1 }
