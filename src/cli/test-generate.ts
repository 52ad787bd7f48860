/**
 * `switchboard test --generate <target>` and `--import mcp-jest.json`: write a test file (and, for
 * --generate, its snapshots), then say what was written and what was left out.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { GenerateError, generateTests } from '../mcptest/generate.js';
import { ImportError, importMcpJest } from '../mcptest/mcp-jest.js';
import { parseServerLine, TestServerError } from '../mcptest/server.js';
import { errorMessage } from '../util/guards.js';
import type { CliIo } from './io.js';
import { escapeControls } from './terminal-text.js';

interface GenerateValues {
  readonly generate?: string;
  readonly import?: string;
  readonly output?: string;
  readonly 'call-tools'?: boolean;
  readonly quiet?: boolean;
}

export async function runGenerateCli(
  values: GenerateValues,
  timeoutMs: number | undefined,
  io: CliIo,
): Promise<number> {
  if (values.import !== undefined)
    return runImport(values.import, values.output ?? 'mcp-jest.mcptest.yaml', io);
  const target = values.generate!;
  const file = values.output ?? 'server.mcptest.yaml';
  try {
    const result = await generateTests(parseServerLine(target), file, {
      serverText: target,
      callTools: values['call-tools'] ?? false,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(values.quiet
        ? {}
        : { onProgress: (line: string) => io.err(`switchboard test: ${escapeControls(line)}\n`) }),
    });
    for (const note of result.notes) io.err(`switchboard test: ${escapeControls(note)}\n`);
    io.out(
      `${result.file}: ${result.written} generated test(s) written, ${result.kept} kept; run it with: switchboard test ${result.file}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof TestServerError) {
      io.err(`switchboard: ${escapeControls(error.message)}\n`);
      return error.message.startsWith('Could not connect') ? 1 : 2;
    }
    if (error instanceof GenerateError) {
      io.err(`switchboard: ${escapeControls(error.message)}\n`);
      return 2;
    }
    io.err(`switchboard: generating tests failed: ${escapeControls(errorMessage(error))}\n`);
    return 1;
  }
}

function runImport(source: string, file: string, io: CliIo): number {
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(source, 'utf8'));
  } catch (error) {
    io.err(`switchboard: ${source} cannot be read as JSON: ${errorMessage(error)}\n`);
    return 2;
  }
  try {
    const result = importMcpJest(config, source);
    writeFileSync(file, result.text);
    for (const note of result.notes) io.err(`switchboard test: not mapped: ${note}\n`);
    io.out(
      `${file}: written from ${source}${result.notes.length > 0 ? ` (${result.notes.length} thing(s) not mapped, listed at its top)` : ''}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    io.err(`switchboard: ${error.message}\n`);
    return 2;
  }
}
