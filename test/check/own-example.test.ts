/** `switchboard check` on Switchboard's example server, over stdio and HTTP: clean in every revision. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkServer } from 'switchboard/check';
import { createExampleServer } from '../../examples/server.js';
import { assertChecked, built, overHttp } from './own-servers.js';

describe('switchboard check on the example server', () => {
  test('the example server over stdio: clean in every revision', async () => {
    const report = await checkServer({
      kind: 'stdio',
      command: process.execPath,
      args: [built('../../examples/server.js'), '--stdio'],
    });
    assertChecked(report);
    assert.equal(report.summary.score, 100);
  });
  test('the example server over HTTP: clean in every revision, the HTTP rules included', async () => {
    await overHttp(createExampleServer(), async (target) => {
      const report = await checkServer(target);
      assertChecked(report);
      const http = report.checks.filter((c) => c.area === 'http' || c.area === 'security');
      assert.ok(
        http.filter((c) => c.status === 'passed').length >= 15,
        `HTTP rules passed: ${http.map((c) => `${c.revision} ${c.id} ${c.status}`).join(', ')}`,
      );
    });
  });
  test('the example server over its HTTP+SSE endpoint (2024-11-05 transport): the transport rules pass', async () => {
    await overHttp(createExampleServer(), async (target) => {
      assert.equal(target.kind, 'http');
      const url = String(target.kind === 'http' && target.url).replace(/\/mcp$/, '/sse');
      const report = await checkServer({ kind: 'http', url }, { revisions: ['2024-11-05'] });
      assertChecked(report);
      const status = (id: string) => report.checks.find((c) => c.id === id)?.status;
      assert.deepEqual(
        ['http.sse-endpoint-event', 'http.sse-post-accepted', 'http.sse-messages-on-stream'].map(status),
        ['passed', 'passed', 'passed'],
      );
    });
  });
});
