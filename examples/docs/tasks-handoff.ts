import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const server = new Server({ name: 'deployer', version: '1.0.0' });
const runDeployment = async (env: string, signal: AbortSignal) =>
  signal.aborted ? 'cancelled' : `deployed to ${env}`;

server.registerTool(
  'deploy',
  { execution: { taskSupport: 'required' }, deferTask: true },
  async (_args, ctx) => {
    const target = await ctx.elicit(
      {
        message: 'Deploy where?',
        requestedSchema: { type: 'object', properties: { env: { type: 'string' } } },
      },
      { key: 'env' },
    );
    const env = target.action === 'accept' ? target.content.env : 'staging';
    return ctx.continueAsTask(async (taskCtx) => runDeployment(env ?? 'staging', taskCtx.signal));
  },
);

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'ops', version: '1.0.0' }, { tasks: true });
client.onElicitation(() => ({ action: 'accept', content: { env: 'production' } }));
await client.connect(clientEnd);
// The question is asked before the task exists; the deployment then runs as a task, followed to its end.
const result = await client.callTool('deploy', {});
console.log(client.revision, result.content);
await client.close();

// Output:
// 2026-07-28 [ { type: 'text', text: 'deployed to production' } ]
