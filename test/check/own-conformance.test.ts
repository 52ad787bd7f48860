/** `switchboard check` on Switchboard's conformance fixture, over stdio and HTTP: no failure, only the warnings listed in own-servers.ts. */
import { describe, test } from 'node:test';
import { checkServer } from 'switchboard/check';
import { createConformanceServer } from '../../conformance/fixture/index.js';
import { assertChecked, built, CONFORMANCE_EXPECTED, overHttp } from './own-servers.js';

describe('switchboard check on the conformance fixture', () => {
  test('the conformance fixture over stdio and HTTP: no failure, only the warnings it earns', async () => {
    const stdio = await checkServer({
      kind: 'stdio',
      command: process.execPath,
      args: [built('../../conformance/server.js'), '--stdio'],
    });
    assertChecked(stdio, CONFORMANCE_EXPECTED);
    await overHttp(createConformanceServer(), async (target) => {
      assertChecked(await checkServer(target), CONFORMANCE_EXPECTED);
    });
  });
});
