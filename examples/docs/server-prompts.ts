import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';
import { z } from 'zod';

const server = new Server({ name: 'prompts', version: '1.0.0' });

// Arguments declared one by one; required ones are checked before the handler runs.
server.registerPrompt(
  'review',
  {
    title: 'Code review',
    arguments: [
      {
        name: 'language',
        required: true,
        complete: (prefix) => ['go', 'rust', 'typescript'].filter((l) => l.startsWith(prefix)),
      },
      { name: 'focus', description: 'What to look at first' },
    ],
  },
  ({ language, focus }) => `Review this ${language} code${focus ? `, looking at ${focus} first` : ''}.`,
);

// Or a schema of string fields: the arguments are derived from it and validated by it.
server.registerPrompt(
  'translate',
  { argsSchema: z.object({ text: z.string(), to: z.string().describe('Target language') }) },
  ({ text, to }) => [
    { role: 'user', content: { type: 'text', text: `Translate into ${to}:` } },
    { role: 'user', content: { type: 'text', text } },
  ],
);

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(clientEnd);

for (const prompt of (await client.listPrompts()).prompts) console.log(prompt.name, prompt.arguments);
const review = await client.getPrompt('review', { language: 'rust', focus: 'unsafe blocks' });
for (const { role, content } of review.messages)
  console.log(role, content.type === 'text' ? content.text : content.type);
const completion = await client.complete({
  ref: { type: 'ref/prompt', name: 'review' },
  argument: { name: 'language', value: 't' },
});
console.log(completion.completion.values);
await client.close();

// Output:
// review [
//   { name: 'language', required: true },
//   { name: 'focus', description: 'What to look at first' }
// ]
// translate [
//   { name: 'text', required: true },
//   { name: 'to', description: 'Target language', required: true }
// ]
// user Review this rust code, looking at unsafe blocks first.
// [ 'typescript' ]
