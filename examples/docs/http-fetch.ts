import { createHttpHandler, META, Server } from 'switchboard';

const server = new Server({ name: 'echo', version: '1.0.0' });
server.registerTool('echo', {}, () => 'echo');

// A web-standard handler, { fetch(Request): Promise<Response>, close() }: mount handler.fetch on any
// runtime with the Fetch API (Deno.serve, Bun.serve, a Workers fetch export, a Hono route...).
const handler = createHttpHandler(server);

async function post(body: object, headers: Record<string, string> = {}): Promise<void> {
  const response = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    }),
  );
  const reply = (await response.json()) as {
    result?: { content: unknown };
    error?: { code: number; message: string };
  };
  const { result, error } = reply;
  console.log(response.status, result ? result.content : `${error?.code} ${error?.message.split(':')[0]}`);
}

// A 2026-07-28 request: its version and capabilities in _meta, mirrored by headers.
const envelope = { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {} };
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta: envelope } };
const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };

await post(call, headers);
await post(call, { ...headers, 'mcp-name': 'other' }); // a header that disagrees with the body
await post({ ...call, method: 'tools/nothing' }, { ...headers, 'mcp-method': 'tools/nothing' });
await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }); // neither the envelope nor a session
await post(call, { ...headers, origin: 'https://evil.example' }); // a page from another site

await handler.close();

// Output:
// 200 [ { type: 'text', text: 'echo' } ]
// 400 -32020 Header mismatch
// 404 -32601 Method not found
// 400 -32600 Bad Request
// 403 -32600 Forbidden
