import { Client, MemoryTaskStore, Server, type SwitchboardError } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const server = new Server(
  { name: 'reports', version: '1.0.0' },
  { tasks: { store: new MemoryTaskStore({ maxTasks: 1000 }), ttlMs: 10 * 60_000, pollIntervalMs: 50 } },
);
server.registerTool(
  'build-report',
  { description: 'Builds a long report', execution: { taskSupport: 'required' } },
  async (_args, ctx) => {
    // Inside a task this waits for the client's answer (tasks/update, or a request on 2025-11-25).
    const answer = await ctx.elicit({
      message: 'Which quarter?',
      requestedSchema: {
        type: 'object',
        properties: { quarter: { type: 'string', enum: ['Q1', 'Q2', 'Q3', 'Q4'] } },
        required: ['quarter'],
      },
    });
    return answer.action === 'accept' ? `Report for ${answer.content.quarter}: all good.` : 'No report.';
  },
);
server.registerTool(
  'crunch',
  { execution: { taskSupport: 'optional' } },
  (_args, ctx) =>
    new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
);

// The same client code in both task forms: the 2026-07-28 extension, the 2025-11-25 experiment.
for (const version of ['auto', { pin: '2025-11-25' }] as const) {
  const [clientEnd, serverEnd] = createLinkedChannels();
  server.connect(serverEnd);
  const client = new Client({ name: 'docs', version: '1.0.0' }, { version, tasks: true });
  const askedBy: (string | undefined)[] = [];
  client.onElicitation((_params, ctx) => {
    askedBy.push(ctx.taskId); // the task that asks
    return { action: 'accept', content: { quarter: 'Q3' } };
  });
  await client.connect(clientEnd);
  console.log(client.revision);

  // The handle comes back at once; result() polls and answers the task's questions on the way.
  const report = await client.callToolAsTask('build-report');
  console.log('  created:', report.task?.status);
  console.log('  result:', (await report.result()).content[0]);
  console.log('  asked by the task:', askedBy[0] === report.taskId);

  // Cancelling stops the handler (ctx.signal); waiting for the task then fails with TASK_CANCELLED.
  const crunch = await client.callToolAsTask('crunch');
  await crunch.cancel();
  await crunch.result().catch((error: SwitchboardError) => console.log('  crunch:', error.code));
  await client.close();
}

// Output:
// 2026-07-28
//   created: working
//   result: { type: 'text', text: 'Report for Q3: all good.' }
//   asked by the task: true
//   crunch: TASK_CANCELLED
// 2025-11-25
//   created: working
//   result: { type: 'text', text: 'Report for Q3: all good.' }
//   asked by the task: true
//   crunch: TASK_CANCELLED
