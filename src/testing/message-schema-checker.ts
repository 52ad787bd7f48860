/**
 * Checks JSON-RPC messages against the JSON Schema of the protocol revision they were sent under.
 *
 * The checker picks the definition itself:
 * - requests and notifications by `method`, among what the sender may send (the schema's
 *   `ClientRequest`/`ClientNotification`/`ServerRequest`/`ServerNotification` unions); a method
 *   outside them is a violation ("method X does not exist in revision R", "... is a server request");
 * - results by the method of the request they answer, which the checker remembers per sender until
 *   the response: `XRequest` is answered by `XResult`, or by `EmptyResult` (`ping`,
 *   `logging/setLevel`, `resources/subscribe`...). On 2026-07-28, `resultType: "input_required"`
 *   selects `InputRequiredResult` for methods whose params take `inputResponses`; on 2025-11-25 a
 *   task-augmented request may be answered by `CreateTaskResult`;
 * - errors against the JSON-RPC error envelope, plus the typed error of the same code when the
 *   revision defines one (2025-11-25: -32042; 2026-07-28: -32700..-32603, -32020, -32021, -32022).
 * Every message is also checked against its JSON-RPC envelope (`JSONRPCRequest`...).
 *
 * Strict by default: see `strict-schema.ts` for what that closes and what stays open.
 * One checker follows one connection (it pairs responses with requests); create one per connection.
 */
import { isRequestId, type RequestId } from '../protocol/jsonrpc.js';
import type { Revision } from '../protocol/revisions.js';
import { isPlainObject } from '../util/guards.js';
import type { Finding } from './explain-errors.js';
import type { MessageKind, RevisionSchema, Sender } from './revision-schema.js';
import type { SchemaCatalog } from './schema-catalog.js';
import { makeViolation, type SchemaViolation, SchemaViolationError } from './schema-violation.js';

export interface MessageSchemaCheckerOptions {
  /** Close every object the spec defines field by field (default true). False: the schemas as published. */
  readonly strict?: boolean;
}

export interface CheckContext {
  /** Shown in violations, e.g. the test step or the transport. */
  readonly label?: string;
  /** For a response: the method of the request it answers, when the checker did not see that request. */
  readonly method?: string;
}

/** A request the checker saw and whose response has not come yet. */
export interface TrackedRequest {
  readonly method: string;
  readonly revision: Revision;
  /** The request carried `params.task` (2025-11-25 task augmentation). */
  readonly taskAugmented: boolean;
}

type Json = Record<string, unknown>;
const otherSide = (sender: Sender): Sender => (sender === 'client' ? 'server' : 'client');

/** What one message was checked against, for the violations it yields. */
interface Subject {
  readonly revision: Revision;
  readonly sender: Sender;
  readonly label?: string;
  method?: string;
  id?: RequestId | null;
}

export class MessageSchemaChecker {
  private readonly strict: boolean;
  private readonly found: SchemaViolation[] = [];
  /** Requests each side sent that still await a response, by id. */
  private readonly pending: Record<Sender, Map<RequestId, TrackedRequest>> = {
    client: new Map(),
    server: new Map(),
  };

  constructor(
    private readonly catalog: SchemaCatalog,
    options: MessageSchemaCheckerOptions = {},
  ) {
    this.strict = options.strict ?? true;
  }

  /**
   * Checks one message (or a 2025-03-26 batch) that `sender` sent under `revision`. Returns the
   * violations it found, which are also kept (see {@link violations}). Never throws on bad input.
   */
  checkMessage(
    revision: Revision,
    sender: Sender,
    message: unknown,
    context: CheckContext = {},
  ): SchemaViolation[] {
    const subject: Subject = { revision, sender, label: context.label };
    const schema = this.catalog.revision(revision, this.strict);
    let value: unknown;
    try {
      // Check what would go on the wire: `undefined` members vanish, `toJSON` applies.
      value = JSON.parse(JSON.stringify(message) ?? 'null');
    } catch (error) {
      return this.keep([
        this.violation(subject, 'JSONRPCMessage', {
          pointer: '',
          value: undefined,
          keyword: 'json',
          reason: `the message cannot be serialized as JSON: ${(error as Error).message}`,
        }),
      ]);
    }
    const found = Array.isArray(value)
      ? this.checkBatch(schema, subject, value, context)
      : this.checkOne(schema, subject, value, context, '');
    return this.keep(found);
  }

  /** Like {@link checkMessage}, but throws a {@link SchemaViolationError} when the message has violations. */
  assertValid(revision: Revision, sender: Sender, message: unknown, context: CheckContext = {}): void {
    const found = this.checkMessage(revision, sender, message, context);
    if (found.length > 0) throw new SchemaViolationError(found, context.label ?? `a ${sender} message`);
  }

  /** Every violation found so far, in order. */
  violations(): readonly SchemaViolation[] {
    return [...this.found];
  }

  /** The request `sender` sent with `id`, if it is still waiting for its response. */
  pendingRequest(sender: Sender, id: unknown): TrackedRequest | undefined {
    return isRequestId(id) ? this.pending[sender].get(id) : undefined;
  }

  private keep(found: SchemaViolation[]): SchemaViolation[] {
    this.found.push(...found);
    return found;
  }

  private checkBatch(schema: RevisionSchema, subject: Subject, batch: unknown[], context: CheckContext) {
    const found: SchemaViolation[] = [];
    const batchViolation = (reason: string) =>
      this.violation(subject, 'JSONRPCMessage', { pointer: '', value: batch, keyword: 'batch', reason });
    if (!schema.batches) {
      found.push(
        batchViolation(`batches do not exist in revision ${schema.revision} (only 2025-03-26 has them)`),
      );
    }
    if (batch.length === 0) found.push(batchViolation('an empty batch is not a valid JSON-RPC message'));
    const responses = batch.filter((m) => isPlainObject(m) && !('method' in m)).length;
    if (responses > 0 && responses < batch.length) {
      found.push(batchViolation('a batch holds either requests and notifications, or responses, never both'));
    }
    batch.forEach((message, i) => {
      found.push(...this.checkOne(schema, { ...subject }, message, context, `/${i}`));
    });
    return found;
  }

  private checkOne(
    schema: RevisionSchema,
    subject: Subject,
    message: unknown,
    context: CheckContext,
    at: string,
  ): SchemaViolation[] {
    const found: SchemaViolation[] = [];
    const add = (definition: string, findings: readonly Finding[], prefix = '') => {
      for (const f of findings) {
        found.push(
          this.violation(subject, definition, {
            pointer: at + prefix + f.pointer,
            value: f.value,
            keyword: f.keyword,
            reason: f.reason,
            schemaLocation: f.schemaPath ? `${f.definition}/${f.schemaPath}` : f.definition,
          }),
        );
      }
    };
    const fail = (definition: string, pointer: string, value: unknown, keyword: string, reason: string) =>
      found.push(this.violation(subject, definition, { pointer: at + pointer, value, keyword, reason }));

    if (!isPlainObject(message)) {
      fail('JSONRPCMessage', '', message, 'type', 'a JSON-RPC message must be a JSON object');
      return found;
    }
    subject.id = isRequestId(message.id) || message.id === null ? message.id : undefined;
    // The specific definition goes first: when it and the envelope reject the same member, the
    // specific violation is the one kept.
    if ('method' in message) {
      const kind: MessageKind = 'id' in message ? 'request' : 'notification';
      if (typeof message.method === 'string') {
        subject.method = message.method;
        this.checkMethod(schema, subject, kind, message, add, fail);
      }
      add(schema.envelope[kind], schema.check(schema.envelope[kind], message));
      return dedupe(found);
    }
    if ('result' in message) {
      const tracked = this.answer(subject.sender, message.id);
      const method = context.method ?? tracked?.method;
      subject.method = method;
      if (method === undefined) {
        const reason =
          'this result answers no request the checker saw; check the request first, or pass context.method';
        fail(schema.envelope.result, '/id', message.id, 'id', reason);
      } else {
        const choice = this.resultDefinition(schema, method, tracked?.taskAugmented ?? false, message.result);
        if ('problem' in choice) {
          fail(schema.envelope.result, choice.pointer, choice.value, choice.keyword, choice.problem);
        } else {
          add(choice.definition, schema.check(choice.definition, message.result), '/result');
        }
      }
      add(schema.envelope.result, schema.check(schema.envelope.result, message));
      return dedupe(found);
    }
    if ('error' in message) {
      subject.method = context.method ?? this.answer(subject.sender, message.id)?.method;
      const code = isPlainObject(message.error) ? message.error.code : undefined;
      for (const typed of schema.errorDefinitions(code)) {
        if (typed.scope === 'response') add(typed.definition, schema.check(typed.definition, message));
        else add(typed.definition, schema.check(typed.definition, message.error), '/error');
      }
      add(schema.envelope.error, schema.check(schema.envelope.error, message));
      return dedupe(found);
    }
    fail(
      'JSONRPCMessage',
      '',
      message,
      'required',
      'not a JSON-RPC message: it has no "method" (request, notification) and no "result" or "error" (response)',
    );
    return found;
  }

  private checkMethod(
    schema: RevisionSchema,
    subject: Subject,
    kind: MessageKind,
    message: Json,
    add: (definition: string, findings: readonly Finding[]) => void,
    fail: (definition: string, pointer: string, value: unknown, keyword: string, reason: string) => void,
  ): void {
    const method = message.method as string;
    const definition = schema.messageDefinition(subject.sender, kind, method);
    if (definition === undefined) {
      fail(
        schema.envelope[kind],
        '/method',
        method,
        'method',
        schema.whyNotSendable(subject.sender, kind, method),
      );
    } else {
      // Up to 2025-06-18 a method's definition holds only `method` and `params`: the JSON-RPC members
      // belong to the envelope, checked separately.
      const { jsonrpc: _jsonrpc, id: _id, ...body } = message;
      add(definition, schema.check(definition, schema.declares(definition, 'jsonrpc') ? message : body));
    }
    if (kind !== 'request' || !isRequestId(message.id)) return;
    const open = this.pending[subject.sender];
    const previous = open.get(message.id);
    if (previous !== undefined) {
      fail(
        schema.envelope.request,
        '/id',
        message.id,
        'id',
        `request id ${JSON.stringify(message.id)} is still in use by a pending "${previous.method}" request; ids must not be reused until answered`,
      );
    }
    const params = message.params;
    open.set(message.id, {
      method,
      revision: subject.revision,
      taskAugmented: isPlainObject(params) && isPlainObject(params.task),
    });
  }

  /** Forgets and returns the request a response from `responder` answers. */
  private answer(responder: Sender, id: unknown): TrackedRequest | undefined {
    if (!isRequestId(id)) return undefined;
    const open = this.pending[otherSide(responder)];
    const tracked = open.get(id);
    open.delete(id);
    return tracked;
  }

  private resultDefinition(
    schema: RevisionSchema,
    method: string,
    taskAugmented: boolean,
    result: unknown,
  ): { definition: string } | { problem: string; pointer: string; value: unknown; keyword: string } {
    const r = schema.revision;
    if (schema.resultTypes && isPlainObject(result)) {
      const resultType = result.resultType;
      if (resultType === 'input_required') {
        return schema.acceptsInputRequired(method)
          ? { definition: 'InputRequiredResult' }
          : {
              problem: `"${method}" cannot be answered with an InputRequiredResult in revision ${r}: its params take no inputResponses`,
              pointer: '/result/resultType',
              value: resultType,
              keyword: 'resultType',
            };
      }
      // The official tasks extension (io.modelcontextprotocol/tasks) answers a tool call with
      // `resultType: "task"`. With the extension's schema merged in (`tasks-schema.ts`) that is its
      // CreateTaskResult; without it, only the common result fields can be checked.
      if (resultType === 'task') {
        if (!schema.has('CreateTaskResult')) return { definition: 'Result' };
        return method === 'tools/call'
          ? { definition: 'CreateTaskResult' }
          : {
              problem: `"${method}" cannot be answered with a task: the tasks extension supports only tools/call`,
              pointer: '/result/resultType',
              value: resultType,
              keyword: 'resultType',
            };
      }
      if (typeof resultType === 'string' && resultType !== 'complete') {
        return {
          problem: `resultType "${resultType}" is not defined in revision ${r} (core: "complete", "input_required"; the tasks extension adds "task")`,
          pointer: '/result/resultType',
          value: resultType,
          keyword: 'resultType',
        };
      }
    }
    if (taskAugmented && isPlainObject(result) && 'task' in result && schema.has('CreateTaskResult')) {
      return { definition: 'CreateTaskResult' };
    }
    const definition = schema.resultDefinition(method);
    if (definition !== undefined) return { definition };
    return {
      problem: `this result answers "${method}", which does not exist in revision ${r}`,
      pointer: '/id',
      value: undefined,
      keyword: 'method',
    };
  }

  private violation(
    subject: Subject,
    definition: string,
    detail: { pointer: string; value: unknown; keyword: string; reason: string; schemaLocation?: string },
  ): SchemaViolation {
    return makeViolation({
      revision: subject.revision,
      sender: subject.sender,
      definition,
      pointer: detail.pointer,
      value: detail.value,
      keyword: detail.keyword,
      reason: detail.reason,
      schemaLocation: detail.schemaLocation ?? definition,
      ...(subject.method === undefined ? {} : { method: subject.method }),
      ...(subject.id === undefined ? {} : { id: subject.id }),
      ...(subject.label === undefined ? {} : { label: subject.label }),
    });
  }
}

/** The envelope and the method's definition may both reject the same member: report it once. */
function dedupe(found: SchemaViolation[]): SchemaViolation[] {
  const seen = new Set<string>();
  return found.filter((v) => {
    const key = `${v.pointer}\u0000${v.keyword}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
