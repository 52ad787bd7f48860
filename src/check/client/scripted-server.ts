/**
 * The servers client mode puts in front of a client: a Switchboard server of the revisions a
 * scenario serves, with tools that exercise the client (a paged tool list; tools that ask for
 * elicitation, sampling and roots when the client declared them), served over loopback HTTP
 * through a {@link TrafficRecorder} that sees every exchange and can play a scenario's trick on it.
 */
import type { Revision } from '../../protocol/revisions.js';
import { jsonSchema } from '../../schema/index.js';
import { ServerCore } from '../../server/server.js';

export const SCRIPTED_INFO = { name: 'switchboard-check-scripted', version: '1' } as const;

/** What the elicitation tool asks for: a form the client's answer is held to. */
export const ELICIT_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', description: 'Any name' } },
  required: ['name'],
} as const;

/**
 * Two tools per page, so a client that lists the tools meets a cursor. The tools that ask the
 * client for input only ask what it declared (asking for more would break the server's own rule).
 */
export function scriptedServer(revisions: readonly Revision[]): ServerCore {
  const server = new ServerCore(SCRIPTED_INFO, {
    revisions,
    pageSize: 2,
    instructions: 'A server of switchboard check: call each tool once.',
  });
  const text = jsonSchema<{ text?: string }>({ type: 'object', properties: { text: { type: 'string' } } });
  const none = jsonSchema<Record<string, never>>({ type: 'object', properties: {} });
  server.registerTool(
    'echo',
    { description: 'Repeats its text.', inputSchema: text, annotations: { readOnlyHint: true } },
    ({ text }) => text ?? '',
  );
  server.registerTool(
    'ask_name',
    { description: 'Asks the user for a name (elicitation), if the client can ask.', inputSchema: none },
    async (_args, ctx) => {
      if (!ctx.client.capabilities.elicitation) return 'The client declares no elicitation.';
      const answer = await ctx.elicit({ message: 'Any name, please.', requestedSchema: ELICIT_SCHEMA });
      return `elicitation: ${answer.action}`;
    },
  );
  server.registerTool(
    'list_roots',
    { description: "Lists the client's roots, if it has any.", inputSchema: none },
    async (_args, ctx) => {
      if (!ctx.client.capabilities.roots) return 'The client declares no roots.';
      return `${(await ctx.listRoots()).length} root(s)`;
    },
  );
  server.registerTool(
    'sample',
    { description: "Asks the client's model for one word (sampling), if it can.", inputSchema: none },
    async (_args, ctx) => {
      if (!ctx.client.capabilities.sampling) return 'The client declares no sampling.';
      const reply = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'Say one word.' } }],
        maxTokens: 10,
      });
      return `sampled from ${reply.model}`;
    },
  );
  return server;
}
