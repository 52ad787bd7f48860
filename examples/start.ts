/**
 * `npm start`: serve the example server over HTTP at http://127.0.0.1:7420/mcp (both eras), run a
 * short client session against it to show it working, then keep serving and say how to connect.
 *
 *   node build/examples/start.js [--port <n>]      (default 7420; 0 picks a free port)
 */
import { Client } from 'switchboard';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch } from 'switchboard/node';
import { howToConnect, serveExampleOverHttp } from './server.js';
import { runSession } from './session.js';

const DEFAULT_PORT = 7420;

async function main(): Promise<void> {
  const at = process.argv.indexOf('--port');
  const port = at === -1 ? DEFAULT_PORT : Number(process.argv[at + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port takes a port number (0-65535), got ${JSON.stringify(process.argv[at + 1])}.`);
  }
  let running: Awaited<ReturnType<typeof serveExampleOverHttp>>;
  try {
    running = await serveExampleOverHttp(port);
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\nIs another server using port ${port}? ` +
        'Stop it, or serve on another port: npm run --silent demo -- --port <n>',
    );
  }
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(`serving ${running.url}; a quick session against it:\n`);
  const client = new Client({ name: 'switchboard-start', version: '1.0.0' });
  await client.connect(new StreamableHttpClientChannel(running.url, { fetch: nodeFetch }));
  try {
    await runSession(client, say);
  } finally {
    await client.close();
  }
  say(`\n${howToConnect(running.url)}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
