/**
 * Input requests: what a server asks of the client while serving a request — elicitation, sampling,
 * roots. Legacy revisions send them as server→client JSON-RPC requests; 2026-07-28 embeds them in an
 * `input_required` result (MRTR). The same rules apply either way, and live here:
 * - which client capability each one needs (a server must never ask for what was not declared);
 * - how params and results are fitted to a revision (no field the revision lacks);
 * - the shape check of an answer, whichever side receives it.
 */

import { isPlainObject } from '../util/guards.js';
import { encodeContentBlock, encodeTool } from './codec.js';
import { SwitchboardError } from './errors.js';
import type { Params } from './jsonrpc.js';
import type { RevisionFeatures } from './revisions.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitFieldSchema,
  ElicitParams,
  ElicitResult,
  ListRootsResult,
  SamplingContent,
  SamplingMessage,
} from './types.js';

export const INPUT_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;
export type InputMethod = (typeof INPUT_METHODS)[number];

export const isInputMethod = (method: unknown): method is InputMethod =>
  (INPUT_METHODS as readonly unknown[]).includes(method);

/** The params and result of each input request. */
export interface InputRequestTypes {
  'elicitation/create': { params: ElicitParams; result: ElicitResult };
  'sampling/createMessage': { params: CreateMessageParams; result: CreateMessageResult };
  'roots/list': { params: Params | undefined; result: ListRootsResult };
}

type Obj = Record<string, unknown>;

// --- capabilities ----------------------------------------------------------------------------------

/** The client capabilities `method` with `params` needs (as `data.requiredCapabilities` lists them). */
export function requiredCapabilities(method: InputMethod, params: Params | undefined): ClientCapabilities {
  switch (method) {
    case 'elicitation/create':
      return { elicitation: params?.mode === 'url' ? { url: {} } : { form: {} } };
    case 'sampling/createMessage': {
      const sampling: NonNullable<ClientCapabilities['sampling']> = {};
      if (params?.tools !== undefined || params?.toolChoice !== undefined) sampling.tools = {};
      if (params?.includeContext !== undefined && params.includeContext !== 'none') sampling.context = {};
      return { sampling };
    }
    case 'roots/list':
      return { roots: {} };
  }
}

/** The part of `required` that `declared` lacks, or undefined when everything is declared. */
export function missingCapabilities(
  required: ClientCapabilities,
  declared: ClientCapabilities,
): ClientCapabilities | undefined {
  if (required.elicitation) {
    const have = declared.elicitation;
    // `elicitation: {}` (no modes) means form only.
    const form = have !== undefined && (have.form !== undefined || have.url === undefined);
    const ok = required.elicitation.url ? have?.url !== undefined : form;
    if (!ok) return { elicitation: required.elicitation };
  }
  if (required.sampling) {
    const have = declared.sampling;
    const missing: NonNullable<ClientCapabilities['sampling']> = {};
    if (required.sampling.tools && !have?.tools) missing.tools = {};
    if (required.sampling.context && !have?.context) missing.context = {};
    if (!have || Object.keys(missing).length > 0) return { sampling: missing };
  }
  if (required.roots && !declared.roots) return { roots: {} };
  return undefined;
}

// --- fitting to a revision -------------------------------------------------------------------------

const needs = (what: string, since: string, f: RevisionFeatures, fix: string) =>
  new SwitchboardError(
    'CAPABILITY_MISSING',
    `${what} needs protocol ${since} or later; this client speaks ${f.revision}. ${fix}`,
  );

/** Params of an input request as `f`'s revision carries them; throws when it cannot. */
export function encodeInputParams(
  method: InputMethod,
  params: Params | undefined,
  f: RevisionFeatures,
): Params | undefined {
  switch (method) {
    case 'elicitation/create':
      return encodeElicitParams(params as unknown as ElicitParams, f) as unknown as Params;
    case 'sampling/createMessage':
      return encodeSamplingParams(params as unknown as CreateMessageParams, f) as unknown as Params;
    case 'roots/list':
      return params;
  }
}

function encodeSamplingParams(params: CreateMessageParams, f: RevisionFeatures): CreateMessageParams {
  if (f.icons) {
    return params.tools ? { ...params, tools: params.tools.map((t) => encodeTool(t, f)) } : params;
  }
  if (params.tools !== undefined || params.toolChoice !== undefined) {
    throw needs(
      'Sampling with tools',
      '2025-11-25',
      f,
      'Sample without tools, or run the tool loop yourself.',
    );
  }
  return {
    ...params,
    messages: params.messages.map((m) => ({
      role: m.role,
      content: singleBlock(m.content, f, 'A sampling message'),
    })),
  };
}

/** One content block a pre-2025-11-25 revision can carry (no arrays, no tool blocks). */
function singleBlock(
  content: SamplingMessage['content'],
  f: RevisionFeatures,
  what: string,
): SamplingContent {
  let block = content;
  if (Array.isArray(block)) {
    if (block.length !== 1) {
      throw needs(
        `${what} with ${block.length} content blocks`,
        '2025-11-25',
        f,
        'Send one block per message.',
      );
    }
    block = block[0]!;
  }
  if (block.type === 'tool_use' || block.type === 'tool_result') {
    throw needs(`A "${block.type}" block in sampling`, '2025-11-25', f, 'Sample without tools.');
  }
  if (block.type === 'audio' && !f.annotations) {
    throw needs('Audio in sampling', '2025-03-26', f, 'Send text or an image.');
  }
  return encodeContentBlock(block, f) as SamplingContent;
}

/** An answer (the client's result) as `f`'s revision carries it; throws when it cannot. */
export function encodeInputResult(method: InputMethod, result: Obj, f: RevisionFeatures): Obj {
  switch (method) {
    case 'elicitation/create':
      // 2026-07-28 input responses are bare results: no `_meta`.
      return f.modern ? withoutMeta(result) : result;
    case 'roots/list': {
      const out = f.modern ? withoutMeta(result) : result;
      if (f.structured) return out;
      return { ...out, roots: (out.roots as Obj[]).map(withoutMeta) };
    }
    case 'sampling/createMessage': {
      if (f.icons) return result;
      const r = result as unknown as CreateMessageResult;
      return { ...result, content: singleBlock(r.content, f, 'A sampling result') };
    }
  }
}

function withoutMeta(value: Obj): Obj {
  if (!('_meta' in value)) return value;
  const { _meta, ...rest } = value;
  return rest;
}

// --- shape checks ----------------------------------------------------------------------------------

const ROLES: readonly unknown[] = ['user', 'assistant'];
const ACTIONS: readonly unknown[] = ['accept', 'decline', 'cancel'];

const isBlock = (v: unknown) => isPlainObject(v) && typeof v.type === 'string';

/** What is wrong with `value` as the result of `method`, or undefined when it has the right shape. */
export function inputResultProblem(method: InputMethod, value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'it is not an object';
  switch (method) {
    case 'elicitation/create':
      if (!ACTIONS.includes(value.action)) return '"action" must be "accept", "decline" or "cancel"';
      if (value.content !== undefined && !isPlainObject(value.content)) return '"content" must be an object';
      return undefined;
    case 'sampling/createMessage': {
      if (!ROLES.includes(value.role)) return '"role" must be "user" or "assistant"';
      if (typeof value.model !== 'string') return '"model" must be a string';
      const c = value.content;
      const ok = Array.isArray(c) ? c.length > 0 && c.every(isBlock) : isBlock(c);
      return ok ? undefined : '"content" must be a content block or a non-empty array of them';
    }
    case 'roots/list': {
      const roots = value.roots;
      const ok =
        Array.isArray(roots) &&
        roots.every(
          (r) =>
            isPlainObject(r) &&
            typeof r.uri === 'string' &&
            (r.name === undefined || typeof r.name === 'string'),
        );
      return ok ? undefined : '"roots" must be an array of { uri: string, name?: string }';
    }
  }
}

/** What is wrong with `value` as the params of `method` (a client checks what a server asks). */
export function inputParamsProblem(method: InputMethod, value: unknown): string | undefined {
  if (method === 'roots/list')
    return value === undefined || isPlainObject(value) ? undefined : 'params must be an object';
  if (!isPlainObject(value)) return 'params must be an object';
  if (method === 'sampling/createMessage') {
    if (!Array.isArray(value.messages)) return '"messages" must be an array';
    if (typeof value.maxTokens !== 'number') return '"maxTokens" must be a number';
    return undefined;
  }
  if (typeof value.message !== 'string') return '"message" must be a string';
  if (value.mode === 'url') return typeof value.url === 'string' ? undefined : '"url" must be a string';
  if (value.mode !== undefined && value.mode !== 'form') return '"mode" must be "form" or "url"';
  return isPlainObject(value.requestedSchema) ? undefined : '"requestedSchema" must be an object';
}

// --- elicitation params for the peer's revision ----------------------------------------------------

const cannot = (what: string, f: RevisionFeatures, fix: string) =>
  new SwitchboardError(
    'CAPABILITY_MISSING',
    `${what} needs protocol 2025-11-25 or later; this client speaks ${f.revision}. ${fix}`,
  );

/**
 * Fits elicitation params to a revision: 2025-06-18 gets titled choices as `enum` + `enumNames` and
 * loses the defaults it cannot carry (it keeps only boolean defaults); multi-select and URL mode are
 * impossible there and throw `CAPABILITY_MISSING`. 2026-07-28 has no `elicitationId`.
 */
export function encodeElicitParams(params: ElicitParams, f: RevisionFeatures): ElicitParams {
  if (!f.structured) {
    throw new SwitchboardError(
      'CAPABILITY_MISSING',
      `Elicitation needs protocol 2025-06-18 or later; this client speaks ${f.revision}. Ask in the tool's arguments or result instead.`,
    );
  }
  if (params.mode === 'url') {
    if (!f.icons) throw cannot('URL-mode elicitation', f, 'Use a form, or return the URL in the result.');
    if (!f.modern) return params;
    const { elicitationId: _id, ...rest } = params;
    return rest;
  }
  if (f.icons) return params;
  const { requestedSchema } = params;
  const properties: Record<string, ElicitFieldSchema> = {};
  for (const [name, field] of Object.entries(requestedSchema.properties)) {
    properties[name] = downgradeField(name, field, f);
  }
  const { $schema: _schema, ...schema } = requestedSchema;
  const { mode: _mode, ...rest } = params;
  return { ...rest, requestedSchema: { ...schema, properties } };
}

function downgradeField(name: string, field: ElicitFieldSchema, f: RevisionFeatures): ElicitFieldSchema {
  if (field.type === 'array') {
    throw cannot(
      `The multi-select field "${name}"`,
      f,
      'Use a single-select field or several boolean fields.',
    );
  }
  if (field.type === 'boolean') return field;
  const { default: _default, ...rest } = field as ElicitFieldSchema & { default?: unknown };
  if ('oneOf' in rest) {
    const { oneOf, ...base } = rest;
    return { ...base, enum: oneOf.map((o) => o.const), enumNames: oneOf.map((o) => o.title) };
  }
  return rest as ElicitFieldSchema;
}
