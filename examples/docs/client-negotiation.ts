import { Client, LEGACY_REVISIONS, Server, type VersionNegotiation } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const dualEra = new Server({ name: 'dual', version: '1.0.0' }, { instructions: 'Call add for sums.' });
dualEra.registerTool('add', {}, () => '');
// A server restricted to the legacy revisions, like most servers written before 2026-07-28.
const legacyOnly = new Server({ name: 'old', version: '0.9.0' }, { revisions: LEGACY_REVISIONS });

async function connect(server: Server, version: VersionNegotiation) {
  const [clientEnd, serverEnd] = createLinkedChannels();
  server.connect(serverEnd);
  const client = new Client({ name: 'docs', version: '1.0.0' }, { version });
  await client.connect(clientEnd);
  console.log(
    `${JSON.stringify(version)} with ${client.serverInfo?.name}: ${client.revision} (${client.era})`,
    Object.keys(client.serverCapabilities),
  );
  return client;
}

// auto (the default): server/discover first, then initialize if the server does not speak 2026-07-28.
const client = await connect(dualEra, 'auto');
console.log(client.instructions);
await client.close();
await (await connect(legacyOnly, 'auto')).close();
// legacy: initialize only, at the newest legacy revision (the server may answer with an older one).
await (await connect(dualEra, 'legacy')).close();
// pin: exactly this revision, or fail.
await (await connect(dualEra, { pin: '2025-03-26' })).close();
await connect(legacyOnly, { pin: '2026-07-28' }).catch((error) => console.log(error.name, error.code));

// Output:
// "auto" with dual: 2026-07-28 (modern) [ 'tools', 'logging' ]
// Call add for sums.
// "auto" with old: 2025-11-25 (legacy) [ 'logging' ]
// "legacy" with dual: 2025-11-25 (legacy) [ 'tools', 'logging' ]
// {"pin":"2025-03-26"} with dual: 2025-03-26 (legacy) [ 'tools', 'logging' ]
// SwitchboardError NEGOTIATION_FAILED
