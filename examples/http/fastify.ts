/**
 * Switchboard's MCP handler mounted in Fastify 5.
 *
 *   node build/examples/http/fastify.js
 *
 * The route hijacks the reply and hands the raw Node request and response to `toNodeListener`.
 * Fastify must leave the body unread (Switchboard reads and caps it), hence the pass-through
 * content-type parser in this encapsulated plugin.
 */
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { createHttpHandler } from 'switchboard';
import { toNodeListener } from 'switchboard/node';
import { createDemoServer, type ExampleOptions, type StartedExample } from './demo-server.js';

export async function startFastify(options: ExampleOptions = {}): Promise<StartedExample> {
  const handler = createHttpHandler(createDemoServer());
  const mcp = toNodeListener(handler);
  // SSE responses are long-lived: on close, cut the connections still open after the handler
  // ended its streams instead of waiting for keep-alive timeouts.
  const app = Fastify({ forceCloseConnections: true });
  const serveMcp = (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    mcp(request.raw, reply.raw);
  };
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', handler: serveMcp });
    scope.get('/sse', serveMcp);
    scope.post('/messages', serveMcp);
  });

  const host = options.host ?? '127.0.0.1';
  const address = await app.listen({ port: options.port ?? 0, host });
  return {
    url: `${address}/mcp`,
    async close() {
      await handler.close();
      await app.close();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await startFastify({ port: Number(process.env.PORT ?? 3000) });
  console.log(`MCP server (Fastify) at ${url}`);
}
