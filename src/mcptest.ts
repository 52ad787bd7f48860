/**
 * `switchboard/mcptest`: run `*.mcptest.yaml|json` test files from code, as `switchboard test` does
 * from the command line (from `node:test`, Vitest or a script), and generate them. Node-only (it
 * spawns stdio servers and reads files).
 */
export { type Answer, textOf } from './mcptest/answer.js';
export { findTestFiles } from './mcptest/discover.js';
export type { Failure } from './mcptest/evaluate.js';
export type {
  Expectations,
  JsonExpectation,
  Outcome,
  ServerSpec,
  Step,
  TestCase,
  TestFile,
  TextExpectation,
} from './mcptest/format.js';
export { type GenerateOptions, type GenerateResult, generateTests, refusalOf } from './mcptest/generate.js';
export { type ImportResult, importMcpJest } from './mcptest/mcp-jest.js';
export { formatProblem, parseTestFile, type ReadResult, type TestFileProblem } from './mcptest/parse.js';
export { formatTestHtml } from './mcptest/report/html.js';
export { formatTestJunit } from './mcptest/report/junit.js';
export { formatProgress, formatSummary } from './mcptest/report/text.js';
export {
  type FileReport,
  type ProgressEvent,
  type RunOptions,
  readTestFile,
  runTestFile,
  runTestFiles,
  succeeded,
  TestFileError,
  type TestReport,
  type TestResult,
  type TestStatus,
  type TestSummary,
} from './mcptest/run.js';
export { parseServerLine, type ResolvedServer, TestServerError } from './mcptest/server.js';
export { snapshotPath } from './mcptest/snapshots.js';
