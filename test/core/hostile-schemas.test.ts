/**
 * Schemas a server sends are data from a peer (issue 15, findings 4 and 10): a catastrophic
 * `pattern` in an outputSchema must not stall the client (it is matched in linear time), and
 * patterns that cannot be matched that way are left unchecked with a warning rather than run.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { SwitchboardError } from '../../src/protocol/errors.js';
import { type Answer, fakeServer, legacyInit } from '../helpers/fake-server.js';
import { trapUnhandledRejections } from '../helpers/trap.js';

trapUnhandledRejections();

/** A legacy server listing `tools` and answering every call with the structuredContent given for it. */
function hostile(tools: Record<string, unknown>[], results: Record<string, unknown>) {
  return fakeServer((request): Answer => {
    switch (request.method) {
      case 'initialize':
        return legacyInit('2025-06-18', { tools: {} });
      case 'tools/list':
        return { result: { tools } };
      case 'tools/call': {
        const structuredContent = results[request.params.name];
        return {
          result: { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent },
        };
      }
      default:
        return { error: { code: -32601, message: 'no' } };
    }
  });
}

const EVIL = '^(a+)+$';
/** 28 characters took the native engine 20 s; these would take longer than the universe. */
const ATTACK = `${'a'.repeat(64)}!`;

describe('peer-supplied patterns', () => {
  test('a catastrophic pattern is matched in linear time, on the fast path and the general validator', async () => {
    const server = hostile(
      [
        {
          name: 'simple',
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: EVIL } } },
        },
        {
          name: 'complex',
          inputSchema: { type: 'object' },
          outputSchema: {
            type: 'object',
            properties: { s: { anyOf: [{ type: 'number' }, { type: 'string', pattern: EVIL }] } },
            $defs: { unused: { type: 'string' } },
          },
        },
        {
          name: 'referenced',
          inputSchema: { type: 'object' },
          outputSchema: {
            type: 'object',
            properties: {
              s: { $ref: '#/$defs/evil' },
              e: { type: 'string', format: 'email', pattern: EVIL },
            },
            $defs: { evil: { type: 'string', pattern: EVIL } },
          },
        },
      ],
      { simple: { s: ATTACK }, complex: { s: ATTACK }, referenced: { s: ATTACK, e: `${ATTACK}@x.org` } },
    );
    const client = new Client({ name: 'victim', version: '1' }, { version: 'legacy' });
    await client.connect(server.channel);
    await client.listTools();
    for (const name of ['simple', 'complex', 'referenced']) {
      await assert.rejects(client.callTool(name, {}), (error: unknown) => {
        assert.ok(error instanceof SwitchboardError, String(error));
        assert.equal(error.code, 'INVALID_RESULT');
        assert.match(
          error.message,
          name === 'complex'
            ? /"s": does not match any of the 2/
            : /"s": expected a string matching the pattern \^\(a\+\)\+\$/,
        );
        if (name === 'referenced') assert.match(error.message, /"e": expected a string matching the pattern/);
        return true;
      });
    }
    await client.close();
  });

  test('a matching value passes; long values are matched in linear time', async () => {
    const long = 'a'.repeat(200_000);
    const server = hostile(
      [
        {
          name: 'ok',
          inputSchema: { type: 'object' },
          outputSchema: {
            type: 'object',
            properties: {
              s: { type: 'string', pattern: EVIL },
              t: { type: 'string', pattern: '^\\d{4}-\\d{2}$' },
            },
          },
        },
      ],
      { ok: { s: long, t: '2024-05' } },
    );
    const client = new Client({ name: 'victim', version: '1' }, { version: 'legacy' });
    await client.connect(server.channel);
    await client.listTools();
    const result = await client.callTool('ok', {});
    assert.equal((result.structuredContent as { s: string }).s.length, 200_000);
    await client.close();
  });

  test('patterns a linear engine cannot run (lookaround, backreferences) are not run: a warning, results unchecked', async () => {
    const warnings: Error[] = [];
    const server = hostile(
      [
        {
          name: 'look',
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(?=(a+)+$)b' } } },
        },
        {
          name: 'props',
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } } },
        },
      ],
      { look: { s: ATTACK }, props: { [ATTACK]: 'not a number' } },
    );
    const client = new Client(
      { name: 'victim', version: '1' },
      { version: 'legacy', onerror: (e) => warnings.push(e) },
    );
    await client.connect(server.channel);
    await client.listTools();
    assert.equal(warnings.length, 2, warnings.map((w) => w.message).join('\n'));
    assert.match(
      warnings[0]!.message,
      /outputSchema of tool "look".*\(\?=\(a\+\)\+\$\)b.*linear time.*not checked/,
    );
    assert.match(
      warnings[1]!.message,
      /outputSchema of tool "props".*patternProperties.*linear time.*not checked/,
    );
    assert.deepEqual((await client.callTool('look', {})).structuredContent, { s: ATTACK });
    assert.deepEqual((await client.callTool('props', {})).structuredContent, { [ATTACK]: 'not a number' });
    await client.close();
  });
});
