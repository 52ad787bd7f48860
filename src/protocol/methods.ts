/**
 * The built-in method table: for every request a client sends a server, in which revisions it
 * exists, which server capability it needs, whether its result is cacheable (2026-07-28), whether it
 * may answer `input_required`, which param `Mcp-Name` mirrors, a hand-written check of its params
 * (the server runs it before any handler or middleware, so handlers only see well-formed params) and
 * a check of its result (the client runs it before its caller sees the result).
 *
 * Pure data: the server's method registry (`server/methods.ts`) pairs these specs with handlers, the
 * client reads them to cache, to loop on `input_required` and to check results, and the HTTP
 * transports read `nameParam`. Methods of extensions and of users get specs of the same shape.
 */

import { isPlainObject } from '../util/guards.js';
import { invalidParams } from './errors.js';
import type { Params } from './jsonrpc.js';
import { RESULT_CHECKS, type ResultCheck } from './results.js';
import { featuresOf, type Revision } from './revisions.js';
import { LOGGING_LEVELS, type ServerCapabilities } from './types.js';

export interface MethodSpec {
  /** Whether the method exists in `revision`. */
  readonly inRevision: (revision: Revision) => boolean;
  /** The server capability that must be advertised for the method to be callable. */
  readonly capability?: keyof ServerCapabilities & string;
  /** 2026-07-28: result carries `ttlMs`/`cacheScope`. */
  readonly cacheable?: boolean;
  /** 2026-07-28: may answer `resultType: "input_required"`. */
  readonly inputRequired?: boolean;
  /** Which param the `Mcp-Name` HTTP header mirrors. */
  readonly nameParam?: string;
  /** Throws `ProtocolError(-32602)` naming the problem when params are malformed. */
  readonly checkParams?: (params: Params, method: string) => void;
  /** Throws `SwitchboardError('INVALID_RESULT')` naming the problem when a result is malformed. */
  readonly checkResult?: ResultCheck;
}

const legacy = (revision: Revision) => !featuresOf(revision).modern;
const modern = (revision: Revision) => featuresOf(revision).modern;
const always = () => true;

// --- param checks ------------------------------------------------------------------------------

const fail = (method: string, problem: string): never => {
  throw invalidParams(`Invalid params for '${method}': ${problem}.`);
};

function requireString(params: Params, key: string, method: string): void {
  if (typeof params[key] !== 'string') fail(method, `"${key}" must be a string`);
}
function optionalString(params: Params, key: string, method: string): void {
  if (params[key] !== undefined && typeof params[key] !== 'string') fail(method, `"${key}" must be a string`);
}
function optionalObject(params: Params, key: string, method: string): void {
  if (params[key] !== undefined && !isPlainObject(params[key])) fail(method, `"${key}" must be an object`);
}
function stringRecord(value: unknown, what: string, method: string): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) fail(method, `"${what}" must be an object`);
  for (const [k, v] of Object.entries(value as object)) {
    if (typeof v !== 'string') fail(method, `"${what}.${k}" must be a string`);
  }
}

/** `_meta`, when present, is an object in every revision; checked for every request before anything reads it. */
export function checkMeta(params: Params, method: string): void {
  const meta = params._meta;
  if (meta === undefined) return;
  if (!isPlainObject(meta)) {
    fail(method, '"_meta" must be an object');
    return;
  }
  // Echoed back in every progress notification: only what the spec allows goes back out.
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== 'string' && !Number.isSafeInteger(token)) {
    fail(method, '"_meta.progressToken" must be a string or an integer');
  }
}

const paginated = (params: Params, method: string) => optionalString(params, 'cursor', method);
const inputResponses = (params: Params, method: string) => {
  optionalObject(params, 'inputResponses', method);
  optionalString(params, 'requestState', method);
};

const checks = {
  initialize(params: Params, method: string) {
    requireString(params, 'protocolVersion', method);
    if (!isPlainObject(params.capabilities)) fail(method, '"capabilities" must be an object');
    const info = params.clientInfo;
    if (!isPlainObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') {
      fail(method, '"clientInfo" must be an object with string "name" and "version"');
    }
  },
  callTool(params: Params, method: string) {
    requireString(params, 'name', method);
    optionalObject(params, 'arguments', method);
    inputResponses(params, method);
  },
  readResource(params: Params, method: string) {
    requireString(params, 'uri', method);
    inputResponses(params, method);
  },
  subscribe(params: Params, method: string) {
    requireString(params, 'uri', method);
  },
  getPrompt(params: Params, method: string) {
    requireString(params, 'name', method);
    stringRecord(params.arguments, 'arguments', method);
    inputResponses(params, method);
  },
  complete(params: Params, method: string) {
    const ref = params.ref;
    if (!isPlainObject(ref)) fail(method, '"ref" must be an object');
    const r = ref as Record<string, unknown>;
    if (r.type === 'ref/prompt') {
      if (typeof r.name !== 'string') fail(method, '"ref.name" must be a string');
    } else if (r.type === 'ref/resource') {
      if (typeof r.uri !== 'string') fail(method, '"ref.uri" must be a string');
    } else {
      fail(method, '"ref.type" must be "ref/prompt" or "ref/resource"');
    }
    const arg = params.argument;
    if (!isPlainObject(arg) || typeof arg.name !== 'string' || typeof arg.value !== 'string') {
      fail(method, '"argument" must be an object with string "name" and "value"');
    }
    if (params.context !== undefined) {
      if (!isPlainObject(params.context)) fail(method, '"context" must be an object');
      stringRecord((params.context as Record<string, unknown>).arguments, 'context.arguments', method);
    }
  },
  setLevel(params: Params, method: string) {
    if (!LOGGING_LEVELS.includes(params.level as never)) {
      fail(method, `"level" must be one of ${LOGGING_LEVELS.join(', ')}`);
    }
  },
  listen(params: Params, method: string) {
    const n = params.notifications;
    if (!isPlainObject(n)) fail(method, '"notifications" must be an object');
    const subs = (n as Record<string, unknown>).resourceSubscriptions;
    if (subs !== undefined && (!Array.isArray(subs) || subs.some((s) => typeof s !== 'string'))) {
      fail(method, '"notifications.resourceSubscriptions" must be an array of strings');
    }
  },
  task(params: Params, method: string) {
    requireString(params, 'taskId', method);
  },
  updateTask(params: Params, method: string) {
    requireString(params, 'taskId', method);
    if (!isPlainObject(params.inputResponses)) fail(method, '"inputResponses" must be an object');
  },
};

/** Requests a client sends to a server. */
export const SERVER_METHODS: Readonly<Record<string, MethodSpec>> = Object.freeze({
  initialize: { inRevision: legacy, checkParams: checks.initialize },
  ping: { inRevision: legacy },
  'server/discover': { inRevision: modern, cacheable: true },
  'tools/list': {
    inRevision: always,
    capability: 'tools',
    cacheable: true,
    checkParams: paginated,
    checkResult: RESULT_CHECKS.listTools,
  },
  'tools/call': {
    inRevision: always,
    capability: 'tools',
    inputRequired: true,
    nameParam: 'name',
    checkParams: checks.callTool,
    checkResult: RESULT_CHECKS.callTool,
  },
  'resources/list': {
    inRevision: always,
    capability: 'resources',
    cacheable: true,
    checkParams: paginated,
    checkResult: RESULT_CHECKS.listResources,
  },
  'resources/templates/list': {
    inRevision: always,
    capability: 'resources',
    cacheable: true,
    checkParams: paginated,
    checkResult: RESULT_CHECKS.listResourceTemplates,
  },
  'resources/read': {
    inRevision: always,
    capability: 'resources',
    cacheable: true,
    inputRequired: true,
    nameParam: 'uri',
    checkParams: checks.readResource,
    checkResult: RESULT_CHECKS.readResource,
  },
  'resources/subscribe': { inRevision: legacy, capability: 'resources', checkParams: checks.subscribe },
  'resources/unsubscribe': { inRevision: legacy, capability: 'resources', checkParams: checks.subscribe },
  'prompts/list': {
    inRevision: always,
    capability: 'prompts',
    cacheable: true,
    checkParams: paginated,
    checkResult: RESULT_CHECKS.listPrompts,
  },
  'prompts/get': {
    inRevision: always,
    capability: 'prompts',
    inputRequired: true,
    nameParam: 'name',
    checkParams: checks.getPrompt,
    checkResult: RESULT_CHECKS.getPrompt,
  },
  'completion/complete': {
    inRevision: always,
    capability: 'completions',
    checkParams: checks.complete,
    checkResult: RESULT_CHECKS.complete,
  },
  'logging/setLevel': { inRevision: legacy, capability: 'logging', checkParams: checks.setLevel },
  'subscriptions/listen': { inRevision: modern, checkParams: checks.listen },
  'tasks/get': {
    inRevision: (r) => r === '2025-11-25' || modern(r),
    nameParam: 'taskId',
    checkParams: checks.task,
  },
  // 2025-11-25 only, where no header mirrors the body: a 2026-07-28 request for it is -32601, whatever its headers.
  'tasks/result': { inRevision: (r) => r === '2025-11-25', checkParams: checks.task },
  'tasks/list': { inRevision: (r) => r === '2025-11-25', checkParams: paginated },
  'tasks/cancel': {
    inRevision: (r) => r === '2025-11-25' || modern(r),
    nameParam: 'taskId',
    checkParams: checks.task,
  },
  'tasks/update': { inRevision: modern, nameParam: 'taskId', checkParams: checks.updateTask },
});

export const methodSpec = (method: string): MethodSpec | undefined =>
  Object.hasOwn(SERVER_METHODS, method) ? SERVER_METHODS[method] : undefined;
