/**
 * switchboard — the Model Context Protocol for TypeScript: server framework, client, protocol model,
 * the web-standard HTTP handler. Runtime-neutral: nothing here imports Node built-ins. Node-only
 * pieces live in `switchboard/stdio` and `switchboard/node`; test helpers in `switchboard/testing`.
 */

export {
  type CallOptions,
  type ClientCallContext,
  ClientCore,
  type ClientCoreOptions,
  type ListOptions,
  type LogMessage,
  type RequestArgs,
  type RequestCallOptions,
  type RequestResult,
  type VersionNegotiation,
} from './client/client.js';
export type {
  ElicitationHandler,
  ElicitationOptions,
  InputContext,
  RootsProvider,
  SamplingHandler,
  SamplingOptions,
} from './client/input-handlers.js';
export type {
  ListenHandlers,
  Subscription,
  SubscriptionEnd,
  SubscriptionState,
} from './client/subscriptions.js';
export type { AuthInfo, Channel, ChannelSink, FrameInfo, InboundExtra } from './engine/channel.js';
export type { MethodHandler, Middleware } from './engine/middleware.js';
export { compose } from './engine/middleware.js';
export type { ProgressUpdate, RequestOptions } from './engine/peer.js';
export {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  type AppCsp,
  type AppPermissions,
  type AppResourceConfig,
  type AppResourceUi,
  type AppToolConfig,
  type AppToolUi,
  type AppVisibility,
  appToolMeta,
  clientSupportsApps,
  isToolForApp,
  isToolForModel,
  registerAppResource,
  registerAppTool,
  toolsForModel,
  toolUi,
  toolVisibility,
  withAppsSupport,
} from './extensions/apps.js';
export { Client, type ClientOptions, type ListToolsOptions } from './extensions/client.js';
export { Server, type ServerOptions } from './extensions/server.js';
export { entryFor, type VerifiedSkillFile, verifySkillFile } from './extensions/skills/client.js';
export { parseFrontmatter, SkillFileError, type SkillRule } from './extensions/skills/frontmatter.js';
export type { SkillsRegistration } from './extensions/skills/plugin.js';
export type { InlineSkill, SkillsOptions } from './extensions/skills/server.js';
export {
  DIRECTORY_MIME_TYPE,
  type GetSkillResult,
  type ListSkillsResult,
  SKILLS_EXTENSION,
  type SkillEntry,
  type SkillResource,
  type SkillsCapability,
} from './extensions/skills/types.js';
export { ClientTask, type TaskCallOptions, type TaskWaitOptions } from './extensions/tasks/client.js';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './extensions/tasks/memory-store.js';
export type { TaskServerOptions } from './extensions/tasks/server.js';
export {
  applyTaskPatch,
  isExpired,
  type NewTask,
  newTaskRecord,
  type TaskListQuery,
  type TaskPatch,
  type TaskRecord,
  type TaskStore,
  type TaskUpdate,
} from './extensions/tasks/store.js';
export {
  isTerminalStatus,
  TASK_NOTIFICATION,
  TASK_STATUSES,
  TASKS_EXTENSION,
  type TaskDetails,
  type TaskInfo,
  type TaskInputRequest,
  type TaskStatus,
} from './extensions/tasks/types.js';
export { ErrorCode, type LocalErrorCode, ProtocolError, SwitchboardError } from './protocol/errors.js';
export type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  Params,
  RequestId,
} from './protocol/jsonrpc.js';
export { META } from './protocol/meta.js';
export type {
  CallToolParams,
  CompleteRequestParams,
  EmptyResult,
  GetPromptParams,
  InitializeRequestParams,
  InputRoundParams,
  KnownMethod,
  ListenParams,
  McpMethods,
  PaginatedParams,
  ParamsOf,
  ReadResourceParams,
  RequestParams,
  ResultEnvelope,
  ResultOf,
  SetLevelParams,
  SubscribeParams,
} from './protocol/method-map.js';
export {
  type Era,
  isRevision,
  LATEST_LEGACY_REVISION,
  LATEST_REVISION,
  LEGACY_REVISIONS,
  type LegacyRevision,
  MODERN_REVISIONS,
  type ModernRevision,
  REVISIONS,
  type Revision,
} from './protocol/revisions.js';
export * from './protocol/types.js';
export type { ElicitFieldValue, ElicitFormContent } from './schema/elicitation.js';
export { jsonSchema, type SchemaLike, type TypedJsonSchema } from './schema/index.js';
export { type BusChange, type ChangeBus, MemoryChangeBus } from './server/change-bus.js';
export type { CompleteForward, Completer, CompletionContext } from './server/completion.js';
export type { ServerConnection } from './server/connection.js';
export {
  audio,
  embeddedResource,
  image,
  resourceContents,
  resourceLink,
  text,
  toolError,
} from './server/content.js';
export type { TaskHandoff } from './server/context.js';
export {
  type ElicitFormRequest,
  type ElicitOutcome,
  type ElicitUrlRequest,
  RequestContext,
} from './server/context.js';
export type { Handle } from './server/handles.js';
export { type InputCallOptions, InputRequiredError } from './server/input.js';
export type { ClientView } from './server/link.js';
export type {
  FallbackLogic,
  MethodOptions,
  MethodParams,
  MethodResult,
} from './server/methods.js';
export type { CarriedInput } from './server/mrtr.js';
export type { PassThroughHandle, PassThroughOptions } from './server/pass-through.js';
export type {
  PromptArgs,
  PromptArgumentConfig,
  PromptConfig,
  PromptForward,
  PromptHandler,
  PromptReturn,
} from './server/prompts.js';
export { type RedactFn, redactSecrets, redactText } from './server/redact.js';
export {
  MemoryKeyring,
  MemoryRequestStateStore,
  type RequestStateKey,
  type RequestStateKeyring,
  type RequestStateStore,
} from './server/request-state.js';
export type {
  ReadForward,
  ResourceConfig,
  ResourceReader,
  ResourceReadReturn,
  ResourceTemplateConfig,
  TemplateReader,
} from './server/resources.js';
export {
  type ListKind,
  type PromptHandle,
  type ResourceHandle,
  type ResourceTemplateHandle,
  ServerCore,
  type ServerCoreOptions,
  type ServerEvents,
  type ToolHandle,
} from './server/server.js';
export type {
  StructuredToolReturn,
  ToolArgs,
  ToolConfig,
  ToolForward,
  ToolHandler,
  ToolReturn,
} from './server/tools.js';
export { UriTemplate } from './server/uri-template.js';
export {
  type EventStore,
  MemoryEventStore,
  type MemoryEventStoreOptions,
  type Replay,
  type StoredEvent,
} from './transports/http/server/event-store.js';
// handler.ts loads the HTTP server itself when the first handler is made (a stdio server never does).
export {
  createHttpHandler,
  type HttpFetchOptions,
  type HttpHandler,
} from './transports/http/server/handler.js';
export type { HttpHandlerOptions, ResponseMode } from './transports/http/server/options.js';
export {
  MemorySessionStore,
  type MemorySessionStoreOptions,
  type SessionEnvelope,
  type SessionMessage,
  type SessionRecord,
  type SessionStore,
} from './transports/http/server/session-store.js';
export type { Logger } from './util/logger.js';
