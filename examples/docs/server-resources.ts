import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const notes = new Map([
  ['groceries', 'milk, eggs'],
  ['ideas', 'a faster JSON parser'],
]);
const server = new Server({ name: 'notes', version: '1.0.0' });

// A static resource: a fixed URI. The reader may return a string, bytes, contents, or { contents }.
server.registerResource(
  'about',
  'notes://about',
  { title: 'About', mimeType: 'text/plain', cache: { ttlMs: 60_000 } },
  () => 'Notes kept in memory.',
);
server.registerResource(
  'logo',
  'notes://logo.png',
  { mimeType: 'image/png' },
  () => new Uint8Array([137, 80]),
);

// A template: any URI matching the RFC 6570 template is read by this handler, with its variables.
server.registerResourceTemplate(
  'note',
  'notes://notes/{name}',
  {
    mimeType: 'text/plain',
    // Optional: the concrete resources it stands for, shown in resources/list.
    list: () => [...notes.keys()].map((name) => ({ uri: `notes://notes/${name}`, name })),
    // Optional: completion of the {name} variable.
    complete: { name: (prefix) => [...notes.keys()].filter((n) => n.startsWith(prefix)) },
  },
  // undefined means "no such resource": the client gets its era's not-found error.
  (_uri, { name }) => notes.get(String(name)),
);

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(clientEnd);

const { resources } = await client.listResources();
console.log(resources.map((r) => r.uri).join(' '));
console.log((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate));
const [idea] = (await client.readResource('notes://notes/ideas')).contents;
console.log(idea);
const [logo] = (await client.readResource('notes://logo.png')).contents;
console.log(logo);
const completion = await client.complete({
  ref: { type: 'ref/resource', uri: 'notes://notes/{name}' },
  argument: { name: 'name', value: 'gr' },
});
console.log(completion.completion.values);
await client.readResource('notes://notes/shopping').catch((error) => console.log(error.code, error.message));
await client.close();

// Output:
// notes://about notes://logo.png notes://notes/groceries notes://notes/ideas
// [ 'notes://notes/{name}' ]
// {
//   uri: 'notes://notes/ideas',
//   text: 'a faster JSON parser',
//   mimeType: 'text/plain'
// }
// { uri: 'notes://logo.png', blob: 'iVA=', mimeType: 'image/png' }
// [ 'groceries' ]
// -32602 Resource not found: notes://notes/shopping. Call resources/list or resources/templates/list for what exists.
