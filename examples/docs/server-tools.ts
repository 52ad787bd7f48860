import { Client, image, resourceLink, Server, text, toolError } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';
import { z } from 'zod';

const server = new Server({ name: 'weather', version: '1.0.0' });

// A handler may return a string, an array of content blocks, or a whole CallToolResult.
server.registerTool('ping', { description: 'Answers pong' }, () => 'pong');

server.registerTool('map', { description: 'A map and where it came from' }, () => [
  text('The map:'),
  image(new Uint8Array([137, 80, 78, 71]), 'image/png'),
  resourceLink({ uri: 'maps://europe', name: 'europe', mimeType: 'image/png' }),
]);

// With an outputSchema the handler returns structuredContent, checked against the schema.
// The JSON text of it is added as content for clients that only read text.
server.registerTool(
  'forecast',
  {
    title: 'Forecast',
    description: 'Tomorrow in one city',
    inputSchema: z.object({ city: z.string(), unit: z.enum(['C', 'F']).default('C') }),
    outputSchema: z.object({ city: z.string(), high: z.number(), unit: z.string() }),
    annotations: { readOnlyHint: true },
  },
  ({ city, unit }) => {
    if (city === 'Atlantis')
      return toolError(`No forecast for ${city}: it is under water. Try another city.`);
    const high = unit === 'C' ? 21 : 70;
    return { structuredContent: { city, high, unit } };
  },
);

// An exception thrown by a handler also becomes an isError result the model can read.
server.registerTool('flaky', { description: 'Always fails' }, () => {
  throw new Error('The upstream API is down; try again in a minute.');
});

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(clientEnd);

console.log((await client.callTool('ping')).content);
console.log((await client.callTool('map')).content.map((block) => block.type));
const forecast = await client.callTool('forecast', { city: 'Lyon' });
console.log(forecast.structuredContent);

// Failures the model should see come back as results with isError: true.
for (const [name, args] of [
  ['forecast', { city: 'Atlantis' }],
  ['flaky', {}],
  ['forecast', { city: 7 }], // breaks the input schema
] as const) {
  const result = await client.callTool(name, args);
  const [first] = result.content;
  console.log(result.isError, first?.type === 'text' ? first.text : first);
}
await client.close();

// Output:
// [ { type: 'text', text: 'pong' } ]
// [ 'text', 'image', 'resource_link' ]
// { city: 'Lyon', high: 21, unit: 'C' }
// true No forecast for Atlantis: it is under water. Try another city.
// true The upstream API is down; try again in a minute.
// true Invalid arguments for tool "forecast": "city": Invalid input: expected string, received number
