import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type AuditEntry,
  AuditLog,
  argumentsDigest,
  rotatedFiles,
  verifyAudit,
} from '../../src/gateway/audit.js';

function entry(n: number): AuditEntry {
  return {
    principal: 'alice',
    client: 'test',
    session: null,
    method: 'tools/call',
    name: `files__read_${n}`,
    upstream: 'files',
    outcome: 'ok',
    durationMs: n,
    argsDigest: argumentsDigest({ path: `/secret/${n}` }),
  };
}

async function written(count: number, maxBytes = 1 << 30): Promise<{ file: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'audit-'));
  const file = join(dir, 'audit.jsonl');
  const log = new AuditLog({ file, maxBytes });
  for (let i = 1; i <= count; i++) log.record(entry(i));
  await log.close();
  return { file, dir };
}

describe('gateway.audit', () => {
  test('one line per record, batched, the arguments only as a digest, the chain intact', async () => {
    const { file } = await written(50);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 50);
    const first = JSON.parse(lines[0]!);
    assert.equal(first.seq, 1);
    assert.equal(first.prev, '0'.repeat(64));
    assert.match(first.argsDigest, /^sha256:[0-9a-f]{64}$/);
    assert.ok(!lines.join('\n').includes('/secret/'), 'no argument value is written');
    assert.deepEqual(verifyAudit([file]), { ok: true, lines: 50, files: 1 });
  });

  test('each line is the JSON of its entry, whatever its strings hold (property)', async () => {
    const nullable = fc.option(fc.string({ unit: 'binary' }), { nil: null });
    const entries = fc.record({
      principal: nullable,
      client: nullable,
      session: nullable,
      method: fc.string({ unit: 'binary' }),
      name: nullable,
      upstream: nullable,
      outcome: fc.constantFrom('ok', 'error', 'denied', 'rate_limited', 'unauthenticated' as const),
      durationMs: fc.double({ noNaN: true, noDefaultInfinity: true }),
      argsDigest: nullable,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(entries, { minLength: 1, maxLength: 5 }), async (records) => {
        const dir = mkdtempSync(join(tmpdir(), 'audit-'));
        const file = join(dir, 'audit.jsonl');
        const log = new AuditLog({ file, maxBytes: 1 << 30 });
        for (const record of records) log.record(record);
        await log.close();
        const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
        assert.equal(lines.length, records.length);
        for (const [i, line] of lines.entries()) {
          const { seq, time, prev, ...rest } = JSON.parse(line) as Record<string, unknown>;
          assert.equal(seq, i + 1);
          assert.match(String(time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          assert.match(String(prev), /^[0-9a-f]{64}$/);
          // -0 reads back as 0 from JSON, as it would from JSON.stringify.
          assert.deepEqual(rest, { ...records[i], durationMs: records[i]!.durationMs || 0 });
        }
        assert.equal(verifyAudit([file]).ok, true);
      }),
      { numRuns: 50 },
    );
  });

  test('a changed, removed, reordered or inserted line is found, naming the first line that breaks', async () => {
    const { file, dir } = await written(8);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const tampered = join(dir, 'tampered.jsonl');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 7 }),
        fc.constantFrom('change', 'remove', 'swap', 'duplicate'),
        async (at, how) => {
          const copy = [...lines];
          if (how === 'change') copy[at] = copy[at]!.replace('"ok"', '"error"');
          if (how === 'remove') copy.splice(at, 1);
          if (how === 'swap') [copy[at], copy[(at + 1) % 8]] = [copy[(at + 1) % 8]!, copy[at]!];
          if (how === 'duplicate') copy.splice(at, 0, copy[at]!);
          writeFileSync(tampered, `${copy.join('\n')}\n`);
          const verdict = verifyAudit([tampered]);
          // What no later line vouches for (the last line changed or removed) and a first line removed
          // (the rest then reads as a file that goes on from an earlier one) are not breaks in what is left.
          if ((how === 'remove' || how === 'change') && at === 7) return;
          if (how === 'remove' && at === 0) return;
          assert.equal(verdict.ok, false, `${how} at ${at}`);
          if (verdict.ok) return;
          const expected = {
            change: at + 2,
            remove: at + 1,
            // A swap with the first line: the first reads as a continuation, the second breaks.
            swap: at === 0 || at === 7 ? 2 : at + 1,
            duplicate: at + 2,
          }[how];
          assert.equal(verdict.line, expected, `${how} at ${at}: ${verdict.reason}`);
        },
      ),
      { numRuns: 40 },
    );
  });

  test('rotation by size keeps the chain across files, and a restart goes on from the last line', async () => {
    const { file } = await written(200, 8 * 1024);
    const rotated = rotatedFiles(file);
    assert.ok(rotated.length >= 3, `rotated into ${rotated.length} files`);
    const all = [...rotated, file];
    assert.deepEqual(verifyAudit(all), { ok: true, lines: 200, files: all.length });
    // Each file on its own is intact too (the first line of a later one goes on from the one before).
    for (const one of all) assert.equal(verifyAudit([one]).ok, true, one);
    // Leaving a rotated file out breaks the chain where it was.
    const gap = verifyAudit([rotated[0]!, ...rotated.slice(2), file]);
    assert.equal(gap.ok, false);
    const again = new AuditLog({ file, maxBytes: 8 * 1024 });
    again.record(entry(201));
    await again.close();
    const after = [...rotatedFiles(file), file];
    assert.deepEqual(verifyAudit(after), { ok: true, lines: 201, files: after.length });
  });
});
