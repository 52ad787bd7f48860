import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const server = new Server({ name: 'handles', version: '1.0.0' });

// Every register* call returns a handle to change the item later.
const deploy = server.registerTool('deploy', { description: 'Deploys the app' }, () => 'deployed');
deploy.disable(); // hidden from lists and calls until enabled again

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
// list_changed notifications reach legacy connections (2026-07-28 clients use subscriptions/listen).
const client = new Client({ name: 'docs', version: '1.0.0' }, { version: 'legacy' });
await client.connect(clientEnd);
client.on('notifications/tools/list_changed', () => console.log('(tools changed)'));

const names = async () => (await client.listTools()).tools.map((t) => t.name);
console.log(await names());

deploy.enable();
console.log(await names());

// Changes made in the same tick are sent as one notification.
deploy.update({ name: 'release', description: 'Releases the app' });
server.registerTool('rollback', { description: 'Rolls back' }, () => 'rolled back');
console.log(await names(), deploy.name, deploy.enabled);

deploy.remove();
console.log(await names());
await client.close();

// Output:
// []
// (tools changed)
// [ 'deploy' ]
// (tools changed)
// [ 'release', 'rollback' ] release true
// (tools changed)
// [ 'rollback' ]
