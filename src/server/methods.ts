/**
 * The server's method registry: what the server does for each method a client may send. Every
 * method lives here the same way — the built-in ones (tools/call, resources/read...), those of the
 * tasks extension, and those of users (`server.method('acme/x', ...)`) — as an entry pairing the
 * method's spec (revisions, capability, params check, cacheability, `input_required`, `Mcp-Name`,
 * from `protocol/methods.ts` for built-ins) with its handler and, for built-ins, the codec that fits
 * its result to a revision.
 *
 * Dispatch is one Map lookup. The request pipeline (`Server.serve`) reads the entry to admit the
 * request, then runs the middleware chain, whose innermost step calls the entry's handler; a
 * request for a method nobody registered reaches the fallback handler, if one is set (a gateway
 * forwards such requests), else is answered -32601.
 */
import {
  ErrorCode,
  invalidParams,
  methodNotFound,
  ProtocolError,
  SwitchboardError,
} from '../protocol/errors.js';
import type { Params } from '../protocol/jsonrpc.js';
import type { ParamsOf, ResultOf } from '../protocol/method-map.js';
import type { MethodSpec } from '../protocol/methods.js';
import type { Revision, RevisionFeatures } from '../protocol/revisions.js';
import type { ServerCapabilities } from '../protocol/types.js';
import {
  type CompiledSchema,
  compileSchema,
  formatIssues,
  type InferInput,
  type InferOutput,
  type SchemaLike,
  type ValidationResult,
} from '../schema/index.js';
import { isPromiseLike } from '../util/guards.js';
import type { RequestContext } from './context.js';

/** The logic of one method: its result, or a promise of it. Thrown errors answer the request. */
export type MethodLogic = (params: Params, ctx: RequestContext) => unknown;

/** What serves a method no entry defines (see `Server.fallback`). */
export type FallbackLogic = (method: string, params: Params, ctx: RequestContext) => unknown;

/** One registered method. */
export interface MethodEntry extends MethodSpec {
  readonly method: string;
  /** The method's own logic, behind every middleware. */
  readonly handler: MethodLogic;
  /** Fits a result of this method to a revision (the built-ins' codecs); absent: sent as is. */
  readonly encode?: (result: Record<string, unknown>, f: RevisionFeatures) => Record<string, unknown>;
  /**
   * Cacheable methods on 2026-07-28: where the `ttlMs`/`cacheScope` come from. `list`: the server's
   * `listCache` option (lists, discover); otherwise what the handler set in `ctx.cacheHint` (a
   * resource's `cache` config), and no caching when it set none.
   */
  readonly cache?: 'list';
}

export class MethodRegistry {
  readonly #entries = new Map<string, MethodEntry>();
  #fallback: FallbackLogic | undefined;

  /** The entry of `method`, if one is registered. */
  get(method: string): MethodEntry | undefined {
    return this.#entries.get(method);
  }

  /** Registers `entry`; a method is registered once (use `hook` to change what an entry does). */
  define(entry: MethodEntry): void {
    if (this.#entries.has(entry.method)) {
      throw new SwitchboardError(
        'CONFIG',
        `The method ${JSON.stringify(entry.method)} is already registered; wrap it with server.intercept() to change what it does.`,
      );
    }
    this.#entries.set(entry.method, entry);
  }

  /** Wraps the handler of a registered method (an extension changing what `tools/call` does, say). */
  hook(method: string, wrap: (next: MethodLogic) => MethodLogic): void {
    const entry = this.#entries.get(method);
    if (!entry) {
      throw new SwitchboardError(
        'CONFIG',
        `Cannot hook ${JSON.stringify(method)}: no such method is registered.`,
      );
    }
    this.#entries.set(method, { ...entry, handler: wrap(entry.handler) });
  }

  /** Serves every method no entry defines. Set once. */
  set fallback(logic: FallbackLogic) {
    if (this.#fallback) {
      throw new SwitchboardError('CONFIG', 'This server already has a fallback handler; set it once.');
    }
    this.#fallback = logic;
  }

  get hasFallback(): boolean {
    return this.#fallback !== undefined;
  }

  /**
   * Runs `method`'s logic: the innermost step of the middleware chain. Not async, and a synchronous
   * handler's value is wrapped in one resolved promise: no promise layer of its own per call.
   */
  run(method: string, params: Params, ctx: RequestContext): Promise<unknown> {
    try {
      const entry = this.#entries.get(method);
      const value = entry
        ? entry.handler(params, ctx)
        : this.#fallback
          ? this.#fallback(method, params, ctx)
          : Promise.reject(methodNotFound(method));
      return value instanceof Promise ? value : Promise.resolve(value);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** How `server.method()` describes a method of its own. */
export interface MethodOptions<P extends SchemaLike | undefined, R extends SchemaLike | undefined> {
  /** The params schema (zod, valibot, arktype or raw JSON Schema): invalid params answer -32602. */
  params?: P;
  /** The result schema: a result that breaks it is a server bug and answers -32603. */
  result?: R;
  /** The revisions the method exists in. Default: every revision the server serves. */
  revisions?: readonly Revision[];
  /** A server capability that must be offered for the method to be callable (else -32601). */
  capability?: keyof ServerCapabilities & string;
  /** 2026-07-28: the handler may ask for input (`ctx.elicit`...), answering `input_required`. */
  inputRequired?: boolean;
  /** 2026-07-28: the result carries `ttlMs`/`cacheScope` (none unless the handler sets `ctx.cacheHint`). */
  cacheable?: boolean;
  /** The param the 2026-07-28 `Mcp-Name` HTTP header mirrors (a string param). */
  nameParam?: string;
}

/** The params a `server.method()` handler receives: the schema's type, else the typed map's. */
export type MethodParams<M extends string, P> = P extends SchemaLike ? InferInput<P> : ParamsOf<M>;
/** What a `server.method()` handler returns: the schema's type, else the typed map's. */
export type MethodResult<M extends string, R> = R extends SchemaLike ? InferOutput<R> : ResultOf<M>;

/** Method names: vendor-prefixed or path-like, printable, no spaces (`acme/search`, `x.y/z`). */
const METHOD_NAME = /^[A-Za-z0-9_.\-/:]{1,200}$/;

/** The entry `server.method()` registers: the user's handler behind schema checks of its params and result. */
export function userMethodEntry(
  method: string,
  options: MethodOptions<SchemaLike | undefined, SchemaLike | undefined>,
  handler: (params: any, ctx: RequestContext) => unknown,
): MethodEntry {
  if (typeof method !== 'string' || !METHOD_NAME.test(method) || method.startsWith('notifications/')) {
    throw new SwitchboardError(
      'CONFIG',
      `Invalid method name ${JSON.stringify(method)}: use 1-200 characters from A-Z, a-z, 0-9, "_", ".", "-", "/" and ":", prefixed with your namespace (e.g. "acme/search"); notifications/ names are not requests.`,
    );
  }
  if (typeof handler !== 'function') {
    throw new SwitchboardError(
      'CONFIG',
      `server.method(${JSON.stringify(method)}): the handler must be a function.`,
    );
  }
  const params =
    options.params === undefined
      ? undefined
      : compileSchema(options.params, { role: 'input', name: method, kind: 'method' });
  const result =
    options.result === undefined
      ? undefined
      : compileSchema(options.result, { role: 'output', name: method, kind: 'method' });
  if (result && !result.rootIsObject) {
    throw new SwitchboardError(
      'CONFIG',
      `The result schema of method ${JSON.stringify(method)} must describe an object: a JSON-RPC result in MCP is an object.`,
    );
  }
  const revisions = options.revisions === undefined ? undefined : new Set<Revision>(options.revisions);
  const run = (value: unknown, ctx: RequestContext): unknown => {
    const returned = handler(value, ctx);
    if (!result) return returned;
    return isPromiseLike(returned)
      ? Promise.resolve(returned).then((r) => checkResult(result, r, method))
      : checkResult(result, returned, method);
  };
  return {
    method,
    inRevision: revisions ? (revision) => revisions.has(revision) : () => true,
    capability: options.capability,
    cacheable: options.cacheable,
    inputRequired: options.inputRequired,
    nameParam: options.nameParam,
    handler: params
      ? (raw, ctx) => {
          // What the protocol adds to every request (the envelope, a retry's answers) is not the method's.
          const { _meta, inputResponses, requestState, ...rest } = raw;
          const verdict = params.validate(rest);
          return isPromiseLike(verdict)
            ? Promise.resolve(verdict).then((v) => run(accepted(v, method), ctx))
            : run(accepted(verdict, method), ctx);
        }
      : run,
  };
}

function accepted(verdict: ValidationResult<unknown>, method: string): unknown {
  if (verdict.ok) return verdict.value;
  throw invalidParams(formatIssues(verdict.issues, `Invalid params for '${method}'`));
}

/** A handler's result against its schema: a mismatch is the server's bug (-32603). */
function checkResult(schema: CompiledSchema, value: unknown, method: string): unknown {
  const verdict = schema.validate(value);
  const settle = (v: ValidationResult<unknown>) => {
    if (v.ok) return v.value;
    throw new ProtocolError(
      ErrorCode.InternalError,
      formatIssues(v.issues, `The result of '${method}' does not match its result schema`),
    );
  };
  return isPromiseLike(verdict) ? Promise.resolve(verdict).then(settle) : settle(verdict);
}
