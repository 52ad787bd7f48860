import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';
import { z } from 'zod';

const server = new Server({ name: 'deployer', version: '1.0.0' });
let runs = 0;

server.registerTool('deploy', { inputSchema: z.object({ env: z.string() }) }, async ({ env }, ctx) => {
  runs++;
  const answer = await ctx.elicit({
    message: `Deploy to ${env}?`,
    requestedSchema: {
      type: 'object',
      properties: { confirm: { type: 'boolean', title: 'Confirm' } },
      required: ['confirm'],
    },
  });
  if (answer.action !== 'accept' || !answer.content.confirm) return 'Cancelled.';
  return `Deployed to ${env}.`; // side effects go after the last question: see "The replay rule"
});

for (const version of ['auto', 'legacy'] as const) {
  const [clientEnd, serverEnd] = createLinkedChannels();
  server.connect(serverEnd);
  const client = new Client({ name: 'docs', version: '1.0.0' }, { version });
  // Registering a handler declares the elicitation capability. A real client shows the form.
  client.onElicitation((params) => {
    console.log(`  the user is asked: ${params.message}`);
    return { action: 'accept', content: { confirm: true } };
  });
  await client.connect(clientEnd);

  runs = 0;
  const result = await client.callTool('deploy', { env: 'staging' });
  console.log(`${client.era}:`, result.content, `(runs of the handler: ${runs})`);
  await client.close();
}

// Output:
//   the user is asked: Deploy to staging?
// modern: [ { type: 'text', text: 'Deployed to staging.' } ] (runs of the handler: 2)
//   the user is asked: Deploy to staging?
// legacy: [ { type: 'text', text: 'Deployed to staging.' } ] (runs of the handler: 1)
