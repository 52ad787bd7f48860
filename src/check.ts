/**
 * `switchboard/check`: score an MCP server's protocol compliance from code, as `switchboard check`
 * does from the command line. Node-only (it spawns stdio servers and reads the official schemas).
 */
export {
  CLIENT_SCENARIOS,
  type ClientCheckOptions,
  type ClientCheckTarget,
  checkClient,
  type ScenarioName,
} from './check/client/run.js';
export { formatHtml } from './check/report/html.js';
export { formatJunit } from './check/report/junit.js';
export { formatText } from './check/report/text.js';
export {
  AREAS,
  type Area,
  appliesTo,
  type Level,
  levelIn,
  type Page,
  REQUIREMENTS,
  type Requirement,
  type Role,
  requirement,
  roleOf,
  type Source,
  sectionIn,
  sourceIn,
  specUrl,
  type TransportKind,
} from './check/requirements.js';
export {
  brokenStatus,
  type CheckEntry,
  type CheckSummary,
  type Status,
  summarize,
} from './check/results.js';
export {
  type CheckOptions,
  type CheckReport,
  type CheckTarget,
  CheckTargetError,
  checkServer,
  type RevisionReport,
} from './check/run.js';
export {
  compareSurfaces,
  formatChanges,
  parseSnapshot,
  SNAPSHOT_FORMAT,
  type Snapshot,
  type Surface,
  type SurfaceChange,
  type SurfaceKind,
  type ToolSample,
  toSnapshot,
} from './check/snapshot.js';
