import { Client, createHttpHandler, LEGACY_REVISIONS, Server } from 'switchboard';
import { type FetchLike, StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch, serve } from 'switchboard/node';

// A server still on the legacy revisions (initialize and sessions), like many deployed today.
const server = new Server({ name: 'legacy', version: '1.0.0' }, { revisions: LEGACY_REVISIONS });
server.registerTool('ping', {}, () => 'pong');
const running = await serve(createHttpHandler(server));

// Any fetch will do; this one prints what goes out and what comes back.
const printing: FetchLike = async (url, init) => {
  const response = await nodeFetch(url, init);
  const what = init.body ? JSON.parse(init.body).method : init.method === 'GET' ? 'stream' : 'session';
  console.log(`  ${init.method} ${what}: ${response.status}`);
  return response;
};

for (const attempt of ['first', 'second']) {
  console.log(`${attempt} connection`);
  const channel = new StreamableHttpClientChannel(running.url, {
    fetch: printing,
    headers: { 'x-request-source': 'docs' }, // added to every request
    bearerToken: () => 'a-fresh-token', // or a string; a function is asked before every request
  });
  const client = new Client({ name: 'docs', version: '1.0.0' });
  await client.connect(channel);
  await client.callTool('ping');
  console.log(`  spoke ${client.revision}; this endpoint is remembered as ${channel.preferredEra}`);
  await client.close();
}
await running.close();

// Output:
// first connection
//   POST server/discover: 400
//   POST initialize: 200
//   POST notifications/initialized: 202
//   GET stream: 200
//   POST tools/call: 200
//   spoke 2025-11-25; this endpoint is remembered as legacy
//   DELETE session: 200
// second connection
//   POST initialize: 200
//   POST notifications/initialized: 202
//   GET stream: 200
//   POST tools/call: 200
//   spoke 2025-11-25; this endpoint is remembered as legacy
//   DELETE session: 200
