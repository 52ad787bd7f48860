import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const server = new Server({ name: 'notes', version: '1.0.0' });
let draft = 'first draft';
server.registerResource('today', 'notes://today', { mimeType: 'text/plain' }, () => draft);
const publish = server.registerTool('publish', { description: 'Publishes the note' }, () => 'published');

// The same client code in both eras: a subscriptions/listen stream on 2026-07-28,
// resources/subscribe plus the connection's list_changed notifications on legacy revisions.
for (const version of ['auto', 'legacy'] as const) {
  const [clientEnd, serverEnd] = createLinkedChannels();
  server.connect(serverEnd);
  const client = new Client({ name: 'docs', version: '1.0.0' }, { version });
  await client.connect(clientEnd);

  const subscription = client.listen(
    { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['notes://today'] },
    {
      onToolsListChanged: () => console.log('  tools changed'),
      onResourceUpdated: (uri) => console.log(`  ${uri} changed`),
    },
  );
  // What the server agreed to: it has no prompts, so promptsListChanged is left out.
  console.log(client.era, await subscription.acknowledged);

  draft = `edited on a ${client.era} connection`;
  server.notifyResourceUpdated('notes://today');
  if (publish.enabled) publish.disable();
  else publish.enable();
  const [content] = (await client.readResource('notes://today')).contents;
  console.log('  read:', content && 'text' in content ? content.text : '');

  await subscription.close(); // cancels the stream, or unsubscribes the URIs
  console.log('  closed:', await subscription.closed);
  await client.close();
}

// Output:
// modern { toolsListChanged: true, resourceSubscriptions: [ 'notes://today' ] }
//   notes://today changed
//   tools changed
//   read: edited on a modern connection
//   closed: { reason: 'closed' }
// legacy { toolsListChanged: true, resourceSubscriptions: [ 'notes://today' ] }
//   notes://today changed
//   tools changed
//   read: edited on a legacy connection
//   closed: { reason: 'closed' }
