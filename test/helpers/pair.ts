/**
 * A Switchboard client and server linked in memory, with every frame on both sides checked against
 * the official schema of the revision in use (strict: no field the revision lacks).
 */
import { Client, type ClientOptions } from '../../src/extensions/client.js';
import type { Server } from '../../src/extensions/server.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { createLinkedChannels } from '../../src/transports/memory.js';

export interface Pair {
  client: Client;
  /** Throws if anything either side sent broke its revision's schema. */
  assertClean(): void;
  close(): Promise<void>;
}

/** `prepare` runs before `connect()`, e.g. to register input handlers (capabilities follow them). */
export async function connectPair(
  server: Server,
  options: ClientOptions = {},
  prepare?: (client: Client) => void,
  name = 'test-client',
): Promise<Pair> {
  const catalog = await loadSchemaCatalog();
  const [clientEnd, serverEnd] = createLinkedChannels();
  const serverSide = new SchemaCheckedChannel(serverEnd, {
    catalog,
    side: 'server',
    peer: 'assert',
    label: 'server',
  });
  const clientSide = new SchemaCheckedChannel(clientEnd, {
    catalog,
    side: 'client',
    peer: 'assert',
    label: 'client',
  });
  server.connect(serverSide);
  const client = new Client({ name, version: '1.0.0' }, options);
  prepare?.(client);
  await client.connect(clientSide);
  return {
    client,
    assertClean() {
      serverSide.assertClean();
      clientSide.assertClean();
    },
    close: () => client.close(),
  };
}
