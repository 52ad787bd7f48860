/** FileTokenStore: owner-only file, round trip, replaced whole, a corrupt file named in the error. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { FileTokenStore } from '../../src/node/token-store.js';

describe('FileTokenStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-tokens-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('keeps clients and tokens across instances, in a file only its owner can read', async () => {
    const file = join(dir, 'nested', 'tokens.json');
    const store = new FileTokenStore(file);
    assert.equal(await store.issuerOf('https://mcp.example/mcp'), undefined);
    await store.setClient('https://as.example', { client_id: 'c1' });
    await store.setTokens('https://as.example', 'https://mcp.example/mcp', {
      access_token: 'a1',
      token_type: 'bearer',
    });
    if (process.platform !== 'win32') {
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, 'nested')).mode & 0o777, 0o700);
    }
    const again = new FileTokenStore(file);
    assert.deepEqual(await again.getClient('https://as.example'), { client_id: 'c1' });
    assert.equal(await again.issuerOf('https://mcp.example/mcp'), 'https://as.example');
    assert.equal(
      (await again.getTokens('https://as.example', 'https://mcp.example/mcp'))?.access_token,
      'a1',
    );
    await again.deleteTokens('https://mcp.example/mcp');
    assert.equal(
      await new FileTokenStore(file).getTokens('https://as.example', 'https://mcp.example/mcp'),
      undefined,
    );
    assert.deepEqual(
      await new FileTokenStore(file).getClient('https://as.example'),
      { client_id: 'c1' },
      'logout keeps the client',
    );
  });

  test('read once and kept; read again when another process wrote the file', async () => {
    const file = join(dir, 'kept.json');
    const resource = 'https://mcp.example/mcp';
    const token = async (store: FileTokenStore) =>
      (await store.getTokens('https://as', resource))?.access_token;
    const store = new FileTokenStore(file);
    await store.setTokens('https://as', resource, { access_token: 'aaaa', token_type: 'bearer' });
    // Whole-second times, which utimes can give back exactly.
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    assert.equal(await token(store), 'aaaa');
    // Changed in place to the same size and given its old times back: to a stat, the same file.
    writeFileSync(file, readFileSync(file, 'utf8').replace('aaaa', 'bbbb'));
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    assert.equal(await token(store), 'aaaa', 'served from memory, not read again');
    // Another process signs in: its save replaces the file (a new inode), which is read again.
    await new FileTokenStore(file).setTokens('https://as', resource, {
      access_token: 'cccc',
      token_type: 'bearer',
    });
    assert.equal(await token(store), 'cccc');
  });

  test('a corrupt file is named, with what to do', async () => {
    const file = join(dir, 'corrupt.json');
    writeFileSync(file, '{ not json');
    await assert.rejects(
      new FileTokenStore(file).getClient('x'),
      /corrupt\.json is not valid JSON: delete it/,
    );
  });
});
