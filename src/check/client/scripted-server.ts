/**
 * The servers client mode puts in front of a client: a Switchboard server of the revisions a
 * scenario serves, with tools that exercise the client (a paged tool list; a ping before `echo`
 * answers, in the legacy revisions; tools that ask for elicitation, sampling and roots when the
 * client declared them; one that runs until the client cancels it), served over loopback HTTP
 * through a {@link TrafficRecorder} that sees every exchange and can play a scenario's trick on
 * it, or over the client's stdio through a {@link StdioTraffic}.
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

/** How long `echo` waits for the client to answer its ping, and `slow` for the client to cancel it. */
export const PING_TIMEOUT_MS = 10_000;
export const SLOW_MS = 10_000;

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
    {
      description: 'Repeats its text (pinging the client first, before 2026-07-28).',
      inputSchema: text,
      annotations: { readOnlyHint: true },
    },
    async ({ text }, ctx) => {
      // The judge reads the client's answer from the traffic; a missing one only delays the echo.
      await ctx.link.legacy
        ?.request('ping', undefined, { signal: ctx.signal, timeoutMs: PING_TIMEOUT_MS })
        .catch(() => {});
      return text ?? '';
    },
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
  server.registerTool(
    'slow',
    {
      description:
        'Runs until the client cancels it: abandon this call (cancel it) at its first progress notification.',
      inputSchema: none,
      annotations: { readOnlyHint: true },
    },
    async (_args, ctx) => {
      ctx.progress(0, undefined, 'started; cancel this call');
      const cancelled = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), SLOW_MS);
        ctx.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve(true);
          },
          { once: true },
        );
      });
      return cancelled ? 'cancelled' : `not cancelled within ${SLOW_MS} ms`;
    },
  );
  return server;
}
