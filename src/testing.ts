/**
 * `switchboard/testing`: helpers for testing MCP servers and clients. Node-only (it reads the
 * official schemas shipped with the package).
 */

// Schema assertions: every message checked against its revision's official JSON Schema.
export { loadSchemaCatalog } from './testing/load-schemas.js';
export {
  type CheckContext,
  MessageSchemaChecker,
  type MessageSchemaCheckerOptions,
  type TrackedRequest,
} from './testing/message-schema-checker.js';
export type { Sender } from './testing/revision-schema.js';
export { SchemaCatalog } from './testing/schema-catalog.js';
export { SchemaCheckedChannel, type SchemaCheckedChannelOptions } from './testing/schema-checked-channel.js';
export { type SchemaViolation, SchemaViolationError } from './testing/schema-violation.js';
export { withTasksExtension } from './testing/tasks-schema.js';
// In-memory linked channels: a client and a server in one process, no I/O.
export { createLinkedChannels } from './transports/memory.js';
