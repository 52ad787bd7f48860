import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import { Client, jsonSchema, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';
import * as v from 'valibot';
import { z } from 'zod';

const server = new Server({ name: 'schemas', version: '1.0.0' });

// zod (4.2 or later): the schema is used as is.
server.registerTool(
  'repeat_zod',
  { inputSchema: z.object({ word: z.string(), times: z.number().int().min(1).default(2) }) },
  ({ word, times }) => word.repeat(times),
);

// valibot: wrap the schema so it can export JSON Schema.
server.registerTool(
  'repeat_valibot',
  { inputSchema: toStandardJsonSchema(v.object({ word: v.string(), times: v.number() })) },
  ({ word, times }) => word.repeat(times),
);

// arktype: the type is used as is.
server.registerTool(
  'repeat_arktype',
  { inputSchema: type({ word: 'string', times: 'number.integer' }) },
  ({ word, times }) => word.repeat(times),
);

// Raw JSON Schema (2020-12 unless $schema says draft-07). jsonSchema<T>() gives the handler a type.
server.registerTool(
  'repeat_raw',
  {
    inputSchema: jsonSchema<{ word: string; times: number }>({
      type: 'object',
      properties: { word: { type: 'string' }, times: { type: 'integer', minimum: 1 } },
      required: ['word', 'times'],
    }),
  },
  ({ word, times }) => word.repeat(times),
);

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(clientEnd);

for (const { name, inputSchema } of (await client.listTools()).tools) {
  const result = await client.callTool(
    name,
    name === 'repeat_zod' ? { word: 'ab' } : { word: 'ab', times: 3 },
  );
  const [first] = result.content;
  console.log(name, Object.keys(inputSchema.properties ?? {}), first?.type === 'text' ? first.text : '');
}
await client.close();

// Output:
// repeat_arktype [ 'times', 'word' ] ababab
// repeat_raw [ 'word', 'times' ] ababab
// repeat_valibot [ 'word', 'times' ] ababab
// repeat_zod [ 'word', 'times' ] abab
