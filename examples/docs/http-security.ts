import { createHttpHandler, META, Server } from 'switchboard';

const server = new Server({ name: 'guarded', version: '1.0.0' });

// The defaults: a loopback Host only (on the fetch path the handler cannot see the interface a
// request came in on), and no Origin, the Host's own origin, or a loopback origin on a loopback Host.
const local = createHttpHandler(server);
// A public deployment lists its host names, and the origins whose pages may call it.
const hosted = createHttpHandler(server, {
  allowedHosts: ['mcp.example.com'],
  allowedOrigins: ['https://app.example.com'],
});

async function discover(handler: typeof local, url: string, origin?: string): Promise<number> {
  const response = await handler.fetch(
    new Request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
        ...(origin ? { origin } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: { _meta: { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {} } },
      }),
    }),
  );
  await response.body?.cancel();
  return response.status;
}

const cases: [string, typeof local, string, string?][] = [
  ['local, no Origin', local, 'http://localhost:3000/mcp'],
  ['local, from a local page', local, 'http://127.0.0.1:3000/mcp', 'http://localhost:5173'],
  ['local, from another site', local, 'http://localhost:3000/mcp', 'https://evil.example'],
  ['local, public Host', local, 'http://mcp.example.com/mcp'],
  ['hosted, public Host', hosted, 'https://mcp.example.com/mcp'],
  ['hosted, from the app', hosted, 'https://mcp.example.com/mcp', 'https://app.example.com'],
  ['hosted, from another site', hosted, 'https://mcp.example.com/mcp', 'https://evil.example'],
  ['hosted, localhost', hosted, 'http://localhost:3000/mcp'], // not listed in allowedHosts
];
for (const [label, handler, url, origin] of cases) {
  console.log(`${label}:`.padEnd(27), await discover(handler, url, origin));
}

// Output:
// local, no Origin:           200
// local, from a local page:   200
// local, from another site:   403
// local, public Host:         403
// hosted, public Host:        200
// hosted, from the app:       200
// hosted, from another site:  403
// hosted, localhost:          403
