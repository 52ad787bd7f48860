import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';
import { z } from 'zod';

// A method of your own: its params and result schemas check what arrives and what the handler
// returns, and type the handler.
const search = {
  params: z.object({ query: z.string(), limit: z.number().int().positive().optional() }),
  result: z.object({ hits: z.array(z.string()) }),
};

const server = new Server({ name: 'acme', version: '1.0.0' });
server.method('acme/search', search, ({ query, limit = 2 }) => ({
  hits: [`${query} one`, `${query} two`, `${query} three`].slice(0, limit),
}));
// It goes through the same pipeline as tools/call: middleware sees it, intercept() wraps it.
server.intercept('acme/search', (params, ctx, next) => {
  console.log(`search on ${ctx.revision}`);
  return next(params);
});

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(clientEnd);

// The client checks the result against the same schema and types it: hits is a string[].
const { hits } = await client.request('acme/search', { query: 'mcp' }, { result: search.result });
console.log(hits);
await client.request('acme/search', { query: 42 }).catch((error) => console.log(error.code, error.message));
await client.request('acme/unknown').catch((error) => console.log(error.code, error.message));
await client.close();

// Output:
// search on 2026-07-28
// [ 'mcp one', 'mcp two' ]
// search on 2026-07-28
// -32602 Invalid params for 'acme/search': "query": Invalid input: expected string, received number
// -32601 Method not found: acme/unknown
