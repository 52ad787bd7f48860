/**
 * The conformance fixture server behind `switchboard gateway`: the fixture (./server.ts) is served
 * on a loopback port, and a gateway fronts it as its one upstream without a namespace
 * (`"namespace": false`), so the suite's tool, prompt and resource names reach it unchanged.
 *
 *   node build/conformance/gateway.js --port <port>     serves the gateway at http://127.0.0.1:<port>/mcp
 *
 * `npm run conformance -- --through gateway` runs the server scenarios against it. Like the
 * fixture, it prints the gateway's URL on stdout once both listen, and stops on SIGINT/SIGTERM.
 */
import { createHttpHandler } from 'switchboard';
import { formatProblem, Gateway, parseGatewayConfig } from 'switchboard/gateway';
import { serve } from 'switchboard/node';
import { createConformanceServer } from './fixture/index.js';

const args = process.argv.slice(2);
const port = Number(args[1]);
if (args.length !== 2 || args[0] !== '--port' || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`Unexpected arguments: ${args.join(' ') || '(none)'}\nUsage: gateway.js --port <port>`);
  process.exit(2);
}

const fixture = await serve(createHttpHandler(createConformanceServer()), { port: 0 });
const loaded = parseGatewayConfig(
  'conformance-gateway.json',
  JSON.stringify({ mcpServers: { fixture: { url: fixture.url, namespace: false } } }),
);
if (!loaded.ok) throw new Error(loaded.problems.map(formatProblem).join('\n'));
const gateway = new Gateway(loaded.config, { logger: console });
await gateway.start();
const running = await serve(createHttpHandler(gateway.server), { port });
const stop = () => {
  void running
    .close()
    .then(() => gateway.close())
    .then(() => fixture.close())
    .then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
// Last: whoever waits for this line may signal us as soon as it reads it.
console.log(running.url);
