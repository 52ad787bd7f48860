import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';
import { z } from 'zod';

const server = new Server({ name: 'onboarding', version: '1.0.0' });

// A flat zod object works as a form: the answer is validated by it and typed as its output.
const Contact = z.object({
  email: z.email(),
  plan: z.enum(['free', 'pro']),
  news: z.boolean().default(true),
});

server.registerTool('onboard', {}, async (_args, ctx) => {
  // Started together, asked together: one round on 2026-07-28.
  const [contact, roots] = await Promise.all([
    ctx.elicit({ message: 'How do we reach you?', requestedSchema: Contact }),
    ctx.listRoots(),
  ]);
  if (contact.action !== 'accept') return 'No contact, no onboarding.';
  const greeting = await ctx.sample({
    messages: [{ role: 'user', content: { type: 'text', text: `Greet ${contact.content.email}` } }],
    maxTokens: 50,
  });
  const [reply] = [greeting.content].flat(); // one block, or several from 2025-11-25 on
  const text = reply?.type === 'text' ? reply.text : '';
  return `${text} Plan ${contact.content.plan}, news ${contact.content.news}, ${roots.length} root(s).`;
});

for (const version of ['auto', 'legacy'] as const) {
  const [clientEnd, serverEnd] = createLinkedChannels();
  server.connect(serverEnd);
  const client = new Client({ name: 'docs', version: '1.0.0' }, { version });
  client.onElicitation((_params, ctx) => {
    console.log(`  form (key ${ctx.key ?? 'none'})`);
    return { action: 'accept', content: { email: 'ada@example.com', plan: 'pro' } };
  });
  client.onSampling((params, ctx) => {
    console.log(`  sampling (key ${ctx.key ?? 'none'}), maxTokens ${params.maxTokens}`);
    return { role: 'assistant', content: { type: 'text', text: 'Welcome, Ada!' }, model: 'docs-model' };
  });
  // A list, or a function asked each time the server wants them.
  client.setRoots((ctx) => {
    console.log(`  roots (key ${ctx.key ?? 'none'})`);
    return [{ uri: 'file:///home/ada/project', name: 'project' }];
  });
  await client.connect(clientEnd);

  const [first] = (await client.callTool('onboard')).content;
  console.log(`${client.era}:`, first?.type === 'text' ? first.text : first);
  await client.close();
}

// Output:
//   form (key 0)
//   roots (key 1)
//   sampling (key 2), maxTokens 50
// modern: Welcome, Ada! Plan pro, news true, 1 root(s).
//   form (key none)
//   roots (key none)
//   sampling (key none), maxTokens 50
// legacy: Welcome, Ada! Plan pro, news true, 1 root(s).
