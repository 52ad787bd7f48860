/**
 * Tasks over real stdio, both forms: a Switchboard client and a Switchboard server in a child
 * process (fixtures/tasks-server.ts), every frame schema-checked on the client's side (strict,
 * the tasks extension's schema merged into 2026-07-28). Every child must be gone at the end.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, type ClientOptions } from '../../src/extensions/client.js';
import { SwitchboardError } from '../../src/protocol/errors.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { StdioClientChannel } from '../../src/transports/stdio/client-channel.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { until } from '../helpers/wait.js';
import { assertExited } from '../interop/helpers/processes.js';

trapUnhandledRejections();

const SERVER = fileURLToPath(new URL('./fixtures/tasks-server.js', import.meta.url));
const pids = new Set<number>();
after(() => assertExited(pids, 'tasks server'));

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

async function connect(options: ClientOptions): Promise<{ client: Client; checked: SchemaCheckedChannel }> {
  const catalog = await loadSchemaCatalog();
  const stdio = new StdioClientChannel({ command: process.execPath, args: [SERVER], stderr: 'inherit' });
  const checked = new SchemaCheckedChannel(stdio, { catalog, side: 'client', peer: 'assert' });
  const client = new Client({ name: 'tasks-stdio-client', version: '1.0.0' }, options);
  client.onElicitation((_params, ctx) => ({
    action: 'accept',
    content: { name: `task ${ctx.taskId?.slice(0, 4)}` },
  }));
  await client.connect(checked);
  pids.add(stdio.pid!);
  return { client, checked };
}

for (const [label, options] of [
  ['2026-07-28 extension', { version: { pin: '2026-07-28' }, tasks: true }],
  ['2025-11-25 experimental', { version: { pin: '2025-11-25' } }],
] as const) {
  describe(`tasks over stdio (${label})`, () => {
    test('a task that asks for input, a cancelled task, a transparent call', async () => {
      const { client, checked } = await connect(options);
      await client.listTools();

      const greet = await client.callToolAsTask('greet');
      assert.ok(greet.taskId);
      assert.equal(textOf(await greet.result()), `Hello, task ${greet.taskId.slice(0, 4)}!`);

      const waiting = await client.callToolAsTask('wait');
      assert.equal((await waiting.refresh()).status, 'working');
      await waiting.cancel();
      await assert.rejects(
        waiting.result(),
        (error: unknown) => error instanceof SwitchboardError && error.code === 'TASK_CANCELLED',
      );
      const stats = async () => JSON.parse(textOf(await client.callTool('stats')));
      await until(async () => (await stats()).aborted === 1, 'the handler saw the cancellation');
      assert.deepEqual(JSON.parse(textOf(await client.callTool('stats'))), { aborted: 1 });

      const released = await client.callToolAsTask('wait');
      await client.callTool('release');
      assert.equal(textOf(await released.result()), 'released');

      // A required tool through plain callTool: the task is followed to its end.
      assert.match(textOf(await client.callTool('greet')), /^Hello, task /);
      await client.close();
      checked.assertClean();
    });
  });
}
