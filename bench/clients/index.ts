/** Loads the load client of one implementation (only that library is imported into the process). */
import type { ClientKind, ConnectClient } from './types.js';

export async function loadClient(kind: ClientKind): Promise<ConnectClient> {
  switch (kind) {
    case 'switchboard':
      return (await import('./switchboard.js')).connect;
    case 'sdk-v1':
      return (await import('./sdk-v1.js')).connect;
    case 'sdk-v2':
      return (await import('./sdk-v2.js')).connect;
    case 'raw':
      return (await import('./raw.js')).connect;
  }
}
