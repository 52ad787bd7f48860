/**
 * The version-neutral model: one set of types for every revision. Each type is the union of the
 * fields any supported revision defines; per-revision codecs (`codec.ts`) drop what an older peer
 * cannot carry. Field docs are short: the spec's schema is the reference.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: unknown };
export type Meta = Record<string, unknown>;

export type Role = 'user' | 'assistant';
export type LoggingLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface Annotations {
  audience?: Role[];
  priority?: number;
  /** ISO 8601 timestamp (2025-06-18+). */
  lastModified?: string;
}

// ---------------------------------------------------------------------------------------------
// Capabilities

export interface ClientCapabilities {
  experimental?: Record<string, JsonObject>;
  roots?: { listChanged?: boolean };
  sampling?: { context?: JsonObject; tools?: JsonObject };
  elicitation?: { form?: JsonObject; url?: JsonObject };
  /** 2025-11-25 experimental tasks. */
  tasks?: JsonObject;
  /** 2026-07-28 extensions, keyed by identifier. */
  extensions?: Record<string, JsonObject>;
}

export interface ServerCapabilities {
  experimental?: Record<string, JsonObject>;
  logging?: JsonObject;
  completions?: JsonObject;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  /** 2025-11-25 experimental tasks. */
  tasks?: JsonObject;
  extensions?: Record<string, JsonObject>;
}

// ---------------------------------------------------------------------------------------------
// Content

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface ImageContent {
  type: 'image';
  /** Base64. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  /** Base64. */
  blob: string;
  _meta?: Meta;
}
export type ResourceContents = TextResourceContents | BlobResourceContents;
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface ResourceLink extends Resource {
  type: 'resource_link';
}
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface ToolUseContent {
  type: 'tool_use';
  id: string;
  name: string;
  input: JsonObject;
  _meta?: Meta;
}
export interface ToolResultContent {
  type: 'tool_result';
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Meta;
}
export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

// ---------------------------------------------------------------------------------------------
// Tools

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface JsonSchemaObject {
  type: 'object';
  properties?: Record<string, JsonObject>;
  required?: string[];
  [keyword: string]: unknown;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonObject;
  annotations?: ToolAnnotations;
  /** Task support (2025-11-25 core; the tasks extension on 2026-07-28). */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  _meta?: Meta;
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Meta;
}

// ---------------------------------------------------------------------------------------------
// Resources

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
}

// ---------------------------------------------------------------------------------------------
// Prompts

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  arguments?: PromptArgument[];
  _meta?: Meta;
}

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
}

// ---------------------------------------------------------------------------------------------
// Completion

export type CompletionReference =
  | { type: 'ref/prompt'; name: string }
  | { type: 'ref/resource'; uri: string };

export interface CompleteParams {
  ref: CompletionReference;
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: Meta;
}

// ---------------------------------------------------------------------------------------------
// Lifecycle and discovery

export interface InitializeParams {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  _meta?: Meta;
}

export interface DiscoverResult {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  serverInfo?: Implementation;
}

/** Cache hints on cacheable modern results (`ttlMs`/`cacheScope`). */
export interface CacheHint {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

// ---------------------------------------------------------------------------------------------
// Lists

export interface PaginatedResult {
  nextCursor?: string;
  _meta?: Meta;
}
export interface ListToolsResult extends PaginatedResult {
  tools: Tool[];
}
export interface ListResourcesResult extends PaginatedResult {
  resources: Resource[];
}
export interface ListResourceTemplatesResult extends PaginatedResult {
  resourceTemplates: ResourceTemplate[];
}
export interface ListPromptsResult extends PaginatedResult {
  prompts: Prompt[];
}

// ---------------------------------------------------------------------------------------------
// Client features (requested by the server)

export interface Root {
  uri: string;
  name?: string;
  _meta?: Meta;
}
export interface ListRootsResult {
  roots: Root[];
  _meta?: Meta;
}

export interface SamplingMessage {
  role: Role;
  content: SamplingContent | SamplingContent[];
  _meta?: Meta;
}
export interface ModelPreferences {
  hints?: { name?: string }[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
}
export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: ModelPreferences;
  /** `thisServer`/`allServers` are soft-deprecated. */
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: JsonObject;
  /** 2025-11-25+: tools the model may call (needs the client's `sampling.tools` capability). */
  tools?: Tool[];
  toolChoice?: { mode?: 'auto' | 'none' | 'required' };
  _meta?: Meta;
}
export interface CreateMessageResult {
  role: Role;
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: string;
  _meta?: Meta;
}

// Elicitation form schemas: a flat object of primitive fields (2025-06-18+; the titled and
// multi-select enum variants and defaults on every primitive arrived in 2025-11-25).

interface FieldBase {
  title?: string;
  description?: string;
}
export interface StringFieldSchema extends FieldBase {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  default?: string;
}
export interface NumberFieldSchema extends FieldBase {
  type: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
}
export interface BooleanFieldSchema extends FieldBase {
  type: 'boolean';
  default?: boolean;
}
/** Single choice among plain values. */
export interface UntitledSingleSelectSchema extends FieldBase {
  type: 'string';
  enum: readonly string[];
  default?: string;
}
/** Single choice among values with display titles. */
export interface TitledSingleSelectSchema extends FieldBase {
  type: 'string';
  oneOf: readonly { const: string; title: string }[];
  default?: string;
}
/** The 2025-06-18 way to title choices: `enumNames` parallel to `enum`. */
export interface LegacyTitledEnumSchema extends FieldBase {
  type: 'string';
  enum: readonly string[];
  enumNames?: readonly string[];
  default?: string;
}
export interface UntitledMultiSelectSchema extends FieldBase {
  type: 'array';
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: readonly string[] };
  default?: readonly string[];
}
export interface TitledMultiSelectSchema extends FieldBase {
  type: 'array';
  minItems?: number;
  maxItems?: number;
  items: { anyOf: readonly { const: string; title: string }[] };
  default?: readonly string[];
}
export type ElicitFieldSchema =
  | StringFieldSchema
  | NumberFieldSchema
  | BooleanFieldSchema
  | UntitledSingleSelectSchema
  | TitledSingleSelectSchema
  | LegacyTitledEnumSchema
  | UntitledMultiSelectSchema
  | TitledMultiSelectSchema;
export interface ElicitFormSchema {
  type: 'object';
  properties: { readonly [name: string]: ElicitFieldSchema };
  required?: readonly string[];
  $schema?: string;
}
export type ElicitValue = string | number | boolean | string[];

export interface ElicitFormParams {
  mode?: 'form';
  message: string;
  requestedSchema: ElicitFormSchema;
  _meta?: Meta;
}
export interface ElicitUrlParams {
  mode: 'url';
  message: string;
  url: string;
  /** 2025-11-25 only (2026-07-28 correlates through `requestState`). */
  elicitationId?: string;
  _meta?: Meta;
}
export type ElicitParams = ElicitFormParams | ElicitUrlParams;
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, ElicitValue>;
  _meta?: Meta;
}

// ---------------------------------------------------------------------------------------------
// Subscriptions (2026-07-28)

export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}
