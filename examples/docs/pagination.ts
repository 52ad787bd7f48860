import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

// Every list is paginated; pageSize sets the number of items per page (default 100).
const server = new Server({ name: 'many', version: '1.0.0' }, { pageSize: 2 });
for (const name of ['a', 'b', 'c', 'd', 'e']) server.registerTool(name, {}, () => name);

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' }, { maxPages: 10 });
await client.connect(clientEnd);

// By default a list call walks every page (up to maxPages, default 100).
console.log((await client.listTools()).tools.map((t) => t.name));

// Or one page at a time: singlePage fetches the first, cursor the one after it.
const first = await client.listTools({ singlePage: true });
console.log(
  first.tools.map((t) => t.name),
  typeof first.nextCursor,
);
const second = await client.listTools({ cursor: first.nextCursor });
console.log(second.tools.map((t) => t.name));
await client.close();

// Output:
// [ 'a', 'b', 'c', 'd', 'e' ]
// [ 'a', 'b' ] string
// [ 'c', 'd' ]
