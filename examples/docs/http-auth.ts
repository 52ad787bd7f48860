import { type AuthInfo, createHttpHandler, META, Server } from 'switchboard';

const server = new Server({ name: 'whoami', version: '1.0.0' });
server.registerTool('whoami', {}, (_args, ctx) => {
  const who = ctx.auth ? `${ctx.auth.subject} (${ctx.auth.scopes?.join(' ')})` : 'nobody';
  return `${who}, trace ${ctx.requestHeaders?.['x-trace-id'] ?? 'none'}`;
});
const handler = createHttpHandler(server);

// Your authentication: check the bearer token (a JWT library, an introspection endpoint...).
function verify(request: Request): AuthInfo | undefined {
  const token = request.headers.get('authorization')?.replace(/^Bearer /i, '');
  return token === 'let-me-in' ? { token, subject: 'alice', scopes: ['tools:call'] } : undefined;
}

// What Deno.serve, Bun.serve or a Workers fetch export runs for every request.
function serveWithAuth(request: Request): Promise<Response> {
  const auth = verify(request);
  if (!auth) {
    const headers = { 'www-authenticate': 'Bearer' };
    return Promise.resolve(new Response('a valid bearer token is required', { status: 401, headers }));
  }
  return handler.fetch(request, { auth });
}

async function whoami(headers: Record<string, string>): Promise<void> {
  const envelope = { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {} };
  const response = await serveWithAuth(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'whoami',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'whoami', _meta: envelope },
      }),
    }),
  );
  if (!response.ok) {
    console.log(response.status, await response.text());
    return;
  }
  const { result } = (await response.json()) as { result: { content: { text: string }[] } };
  console.log(response.status, result.content[0]!.text);
}

await whoami({ authorization: 'Bearer let-me-in', 'x-trace-id': 'b7e1' });
await whoami({ authorization: 'Bearer guess' });
await handler.close();

// Output:
// 200 alice (tools:call), trace b7e1
// 401 a valid bearer token is required
