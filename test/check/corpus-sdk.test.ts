/**
 * The corpus of real servers (test/check/corpus.ts), those built on the official SDKs, over stdio:
 * server-everything and server-memory (SDK v1, as published) and a server written from the SDK
 * v2's README. Every verdict is listed with its reason; any other fails the test.
 */
import { describe, test } from 'node:test';
import { assertCorpusVerdicts, expect } from './corpus.js';

describe('the corpus: servers built on the official SDKs', () => {
  test('server-everything', async () => {
    await assertCorpusVerdicts(
      'everything',
      ['2025-11-25', '2025-03-26'],
      {
        ...expect(
          ['2025-11-25', '2025-03-26'],
          'jsonrpc.parse-error warning',
          'jsonrpc.invalid-request warning',
          'tools.unknown-tool advice',
          'resources.not-found warning',
          'pagination.invalid-cursor warning',
          'logging.invalid-level warning',
        ),
        // resource_link content, a 2025-06-18 type; the tasks capability of 2025-11-25.
        ...expect(
          ['2025-03-26'],
          'schema.server-messages failed',
          'schema.revision-fields warning',
          'jsonrpc.batch failed',
        ),
      },
      // Its 10 s tool may still run when stdin closes, depending on the machine's load.
      ['stdio.exit-on-eof'],
    );
  });

  test('server-memory', async () => {
    await assertCorpusVerdicts('memory', ['2025-11-25', '2025-03-26'], {
      ...expect(
        ['2025-11-25', '2025-03-26'],
        'jsonrpc.parse-error warning',
        'jsonrpc.invalid-request warning',
        'tools.unknown-tool advice',
        'resources.not-found warning',
        'pagination.invalid-cursor warning',
      ),
      // Tool titles (2025-06-18) sent to a 2025-03-26 client.
      ...expect(['2025-03-26'], 'schema.revision-fields warning', 'jsonrpc.batch failed'),
    });
  });

  test('a server from the SDK v2 README', async () => {
    await assertCorpusVerdicts('sdk-v2', ['2026-07-28', '2025-11-25', '2025-03-26'], {
      ...expect(
        ['2026-07-28', '2025-11-25', '2025-03-26'],
        'jsonrpc.parse-error warning',
        'jsonrpc.invalid-request warning',
        'pagination.invalid-cursor warning',
      ),
      ...expect(['2026-07-28'], 'lifecycle.unsupported-version failed'),
      ...expect(['2025-11-25', '2025-03-26'], 'resources.not-found warning'),
      ...expect(['2025-03-26'], 'schema.revision-fields warning', 'jsonrpc.batch failed'),
    });
  });
});
