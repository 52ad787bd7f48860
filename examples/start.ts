/**
 * `npm start`: one port, http://127.0.0.1:7420, serving both the example server (MCP at /mcp, both
 * eras; HTTP+SSE at /sse) and the Switchboard console at / already connected to it. Prints the
 * console's URL first, runs a short client session against the server to show it working, then
 * keeps serving and says how to connect.
 *
 *   node build/examples/start.js [--port <n>]      (default 7420; 0 picks a free port)
 */
import { Client, createHttpHandler } from 'switchboard';
import { serveConsole } from 'switchboard/console';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch, toNodeListener } from 'switchboard/node';
import { createExampleServer, howToConnect } from './server.js';
import { runSession } from './session.js';

const DEFAULT_PORT = 7420;

async function main(): Promise<void> {
  const at = process.argv.indexOf('--port');
  const port = at === -1 ? DEFAULT_PORT : Number(process.argv[at + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port takes a port number (0-65535), got ${JSON.stringify(process.argv[at + 1])}.`);
  }
  const mcp = createHttpHandler(createExampleServer());
  let running: Awaited<ReturnType<typeof serveConsole>>;
  try {
    // Every path that is not the console's (/mcp, /sse, /messages) goes to the MCP handler.
    running = await serveConsole({ port, next: toNodeListener(mcp) });
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\nIs another server using port ${port}? ` +
        'Stop it, or serve on another port: npm start -- --port <n>',
    );
  }
  const stop = () => {
    void Promise.all([running.close(), mcp.close()]).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const url = `${running.origin}/mcp`;
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(`Switchboard console: ${running.url}\n`);
  await running.connect({ kind: 'http', url, label: 'the example server' });
  say(`serving ${url}; a quick session against it:\n`);
  const client = new Client({ name: 'switchboard-start', version: '1.0.0' });
  await client.connect(new StreamableHttpClientChannel(url, { fetch: nodeFetch }));
  try {
    await runSession(client, say);
  } finally {
    await client.close();
  }
  say(`\n${howToConnect(url)}`);
  say(`The console (open it in a browser; the token in it is what lets you in):\n  ${running.url}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
