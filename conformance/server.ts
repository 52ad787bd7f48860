/**
 * The conformance fixture server (see ./fixture/index.ts).
 *
 *   npm run --silent conformance:server -- --port 3001   serves http://127.0.0.1:3001/mcp
 *   npm run --silent conformance:server -- --stdio       serves stdin/stdout
 *
 * Over HTTP it prints the endpoint's URL on stdout once it listens (runners wait for that line) and
 * stops on SIGINT/SIGTERM.
 */
import { createHttpHandler } from 'switchboard';
import { serve } from 'switchboard/node';
import { serveStdio } from 'switchboard/stdio';
import { createConformanceServer } from './fixture/index.js';

function usage(problem: string): never {
  console.error(`${problem}\nUsage: conformance:server -- --port <port> | --stdio`);
  process.exit(2);
}

const args = process.argv.slice(2);
const server = createConformanceServer();
if (args.length === 1 && args[0] === '--stdio') {
  serveStdio(server);
} else if (args.length === 2 && args[0] === '--port') {
  const port = Number(args[1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`Not a port: ${args[1]}`);
  const running = await serve(createHttpHandler(server), { port });
  const stop = () => {
    running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Last: whoever waits for this line may signal us as soon as it reads it.
  console.log(running.url);
} else {
  usage(`Unexpected arguments: ${args.join(' ') || '(none)'}`);
}
