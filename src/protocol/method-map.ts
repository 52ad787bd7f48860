/**
 * The typed request map: for each method a client sends a server, the type of its params and of its
 * result. `client.request('tools/call', params)`, `server.intercept('tools/call', hook)` and
 * `server.method(...)` read their types from here.
 *
 * Open, like the method registry: an extension or an application adds its own methods by declaration
 * merging, and every typed API then knows them:
 *
 * ```ts
 * declare module 'switchboard' {
 *   interface McpMethods {
 *     'acme/search': { params: { query: string }; result: { hits: string[] } };
 *   }
 * }
 * ```
 */
import type { Params } from './jsonrpc.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteParams,
  CompleteResult,
  DiscoverResult,
  GetPromptResult,
  Implementation,
  InitializeResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LoggingLevel,
  Meta,
  ReadResourceResult,
  SubscriptionFilter,
} from './types.js';

/** What every request's params may carry. */
export interface RequestParams {
  _meta?: Meta;
}

/** An empty result (`ping`, `logging/setLevel`, ...). */
export interface EmptyResult {
  _meta?: Meta;
}

/** 2026-07-28: the answers and sealed state a retry after `input_required` carries. */
export interface InputRoundParams {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

export interface PaginatedParams extends RequestParams {
  cursor?: string;
}

export interface InitializeRequestParams extends RequestParams {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
}

export interface CallToolParams extends RequestParams, InputRoundParams {
  name: string;
  arguments?: Record<string, unknown>;
  /** 2025-11-25: ask for the call to run as a task (`ttl` in ms). */
  task?: { ttl?: number };
}

export interface ReadResourceParams extends RequestParams, InputRoundParams {
  uri: string;
}

export interface GetPromptParams extends RequestParams, InputRoundParams {
  name: string;
  arguments?: Record<string, string>;
}

export interface CompleteRequestParams extends CompleteParams, RequestParams {}

export interface SubscribeParams extends RequestParams {
  uri: string;
}

export interface SetLevelParams extends RequestParams {
  level: LoggingLevel;
}

export interface ListenParams extends RequestParams {
  notifications: SubscriptionFilter;
}

/**
 * Method name → `{ params, result }`. The built-in methods of the protocol; extensions (tasks) and
 * applications add theirs by declaration merging.
 */
export interface McpMethods {
  initialize: { params: InitializeRequestParams; result: InitializeResult };
  ping: { params: RequestParams; result: EmptyResult };
  'server/discover': { params: RequestParams; result: DiscoverResult };
  'tools/list': { params: PaginatedParams; result: ListToolsResult };
  'tools/call': { params: CallToolParams; result: CallToolResult };
  'resources/list': { params: PaginatedParams; result: ListResourcesResult };
  'resources/templates/list': { params: PaginatedParams; result: ListResourceTemplatesResult };
  'resources/read': { params: ReadResourceParams; result: ReadResourceResult };
  'resources/subscribe': { params: SubscribeParams; result: EmptyResult };
  'resources/unsubscribe': { params: SubscribeParams; result: EmptyResult };
  'prompts/list': { params: PaginatedParams; result: ListPromptsResult };
  'prompts/get': { params: GetPromptParams; result: GetPromptResult };
  'completion/complete': { params: CompleteRequestParams; result: CompleteResult };
  'logging/setLevel': { params: SetLevelParams; result: EmptyResult };
  'subscriptions/listen': { params: ListenParams; result: EmptyResult };
}

/** A method the map knows. */
export type KnownMethod = keyof McpMethods & string;

/** The params of `M`: its entry in {@link McpMethods}, or any params for a method the map does not know. */
export type ParamsOf<M extends string> = M extends KnownMethod ? McpMethods[M]['params'] : Params;

/** What 2026-07-28 adds to results on the wire (`request()` hands them over as received). */
export interface ResultEnvelope {
  resultType?: string;
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

/** The result of `M`: its entry in {@link McpMethods}, or a JSON object for a method the map does not know. */
export type ResultOf<M extends string> = M extends KnownMethod
  ? McpMethods[M]['result'] & ResultEnvelope
  : Record<string, unknown>;
