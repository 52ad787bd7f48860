import { createHttpHandler, Server } from 'switchboard';
import { checkServer } from 'switchboard/check';
import { serve } from 'switchboard/node';
import { z } from 'zod';

// A server to check: one read-only tool with an output schema, served over loopback HTTP.
const server = new Server({ name: 'weather', version: '1.0.0' });
server.registerTool(
  'forecast',
  {
    description: 'Tomorrow in one city',
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ city: z.string(), high: z.number() }),
    annotations: { readOnlyHint: true },
  },
  ({ city }) => ({ structuredContent: { city, high: 21 } }),
);
const running = await serve(createHttpHandler(server), { port: 0, host: '127.0.0.1' });

// checkServer takes a stdio command ({ kind: 'stdio', command, args }) or an HTTP URL.
const report = await checkServer(
  { kind: 'http', url: running.url },
  { revisions: ['2026-07-28', '2025-11-25'] },
);
await running.close();

console.log(report.revisions.map((r) => `${r.revision}: ${r.supported ? 'checked' : 'not spoken'}`));
const { failed, warnings, score } = report.summary;
console.log({ failed, warnings, score });
// One entry per requirement and revision: id, level, status, message (and the evidence of a failure).
const called = report.checks.find((c) => c.id === 'tools.output-schema' && c.revision === '2026-07-28');
console.log(called?.level, called?.status, called?.message);

// Output:
// [ '2026-07-28: checked', '2025-11-25: checked' ]
// { failed: 0, warnings: 0, score: 100 }
// MUST passed structuredContent conforms to the outputSchema
