import { MemoryTaskStore, Server } from 'switchboard';

const server = new Server(
  { name: 'reports', version: '1.0.0' },
  {
    tasks: {
      store: new MemoryTaskStore({ maxTasks: 10_000 }), // a TaskStore; this is the default
      ttlMs: 3_600_000, // lifetime from creation; null = unlimited (still bounded by the store)
      maxTtlMs: 86_400_000, // cap on a 2025-11-25 client's requested `ttl`; null = no cap
      pollIntervalMs: 1000, // suggested to clients
    },
  },
);
console.log(server.taskStore instanceof MemoryTaskStore);

// Output:
// true
