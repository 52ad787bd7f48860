/**
 * The corpus of real servers (test/check/corpus.ts), those built on other frameworks: FastMCP (a
 * server from its README, stdio), tmcp (the benchmark's server, HTTP) and mcp-proxy (server-memory
 * behind it, HTTP). Every verdict is listed with its reason; any other fails the test.
 */
import { describe, test } from 'node:test';
import { assertCorpusVerdicts, expect } from './corpus.js';

describe('the corpus: servers built on other frameworks', () => {
  test('FastMCP, a server from its README', async () => {
    await assertCorpusVerdicts('fastmcp', ['2025-11-25', '2025-03-26'], {
      ...expect(
        ['2025-11-25', '2025-03-26'],
        // A resource's name in its contents (only Resource has one).
        'schema.revision-fields warning',
        'jsonrpc.parse-error warning',
        'jsonrpc.invalid-request warning',
        'tools.unknown-tool advice',
        'resources.not-found warning',
        'prompts.missing-arguments warning',
        'prompts.unknown-prompt warning',
        'pagination.invalid-cursor warning',
        'logging.invalid-level warning',
      ),
      ...expect(['2025-03-26'], 'jsonrpc.batch failed'),
    });
  });

  test('tmcp over HTTP', async () => {
    // tmcp answers initialize for 2025-11-25 with 2025-06-18: that revision is left out.
    await assertCorpusVerdicts('tmcp', ['2026-07-28', '2025-06-18', '2025-03-26'], {
      ...expect(
        ['2026-07-28', '2025-06-18', '2025-03-26'],
        // completion/complete answered with null (legacy) or without "completion" (2026-07-28).
        'schema.server-messages failed',
        'capabilities.undeclared-refused warning',
        'tools.unknown-tool advice',
        'pagination.invalid-cursor warning',
        'security.origin failed',
        'security.host advice',
        'security.body-limit advice',
      ),
      ...expect(
        ['2025-06-18', '2025-03-26'],
        'schema.revision-fields warning',
        'resources.not-found warning',
        'http.unknown-session failed',
        'http.delete-session failed',
      ),
      ...expect(['2025-06-18'], 'http.protocol-version-400 failed'),
      ...expect(['2025-03-26'], 'jsonrpc.batch failed'),
    });
  });

  test('mcp-proxy in front of server-memory', async () => {
    await assertCorpusVerdicts('mcp-proxy', ['2025-11-25', '2025-03-26'], {
      ...expect(
        ['2025-11-25', '2025-03-26'],
        'tools.unknown-tool advice',
        'resources.not-found warning',
        'pagination.invalid-cursor warning',
        'security.origin failed',
        'security.host advice',
      ),
      ...expect(['2025-11-25'], 'jsonrpc.batch-refused warning'),
      ...expect(['2025-03-26'], 'schema.revision-fields warning'),
    });
  });
});
