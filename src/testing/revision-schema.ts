/**
 * One protocol revision's JSON Schema, prepared for checking messages: derived (strict or official),
 * dereferenced once, and indexed by what the checker needs to pick a definition — which methods each
 * side may send, which result answers which method, which typed error matches which code.
 *
 * Everything here is computed once per revision and variant (see `SchemaCatalog`), so checking a
 * message costs only the validation itself.
 */
import { dereference, type OutputUnit, type Schema, type SchemaDraft, validate } from '@cfworker/json-schema';
import type { Revision } from '../protocol/revisions.js';
import { isPlainObject } from '../util/guards.js';
import { explainErrors, type Finding } from './explain-errors.js';
import { definitionName, definitionsOf, deriveOfficialSchema, deriveStrictSchema } from './strict-schema.js';

export type Sender = 'client' | 'server';
export type MessageKind = 'request' | 'notification';

type SchemaNode = Record<string, unknown>;

/** Where a typed error definition applies: the whole response, or only its `error` member. */
export interface ErrorDefinition {
  readonly definition: string;
  readonly scope: 'response' | 'error';
}

export class RevisionSchema {
  readonly revision: Revision;
  readonly strict: boolean;
  /** JSON-RPC batches exist in this revision (2025-03-26). */
  readonly batches: boolean;
  /** Results carry `resultType` and may be `InputRequiredResult` (2026-07-28). */
  readonly resultTypes: boolean;
  /** Envelope definitions for each message kind. */
  readonly envelope: {
    readonly request: string;
    readonly notification: string;
    readonly result: string;
    readonly error: string;
  };

  private readonly defs: Record<string, SchemaNode>;
  private readonly draft: SchemaDraft;
  private readonly lookup: Record<string, Schema | boolean>;
  /** method → definition, per sender and kind. */
  private readonly sendable: Record<Sender, Record<MessageKind, Map<string, string>>>;
  /** method → definition, for every definition whose `method` is a const (including input requests). */
  private readonly everyMethod = new Map<string, string>();
  private readonly errorsByCode = new Map<number, ErrorDefinition[]>();

  constructor(revision: Revision, document: unknown, strict: boolean) {
    this.revision = revision;
    this.strict = strict;
    const schema = strict ? deriveStrictSchema(document) : deriveOfficialSchema(document);
    this.defs = definitionsOf(schema);
    this.draft = String(schema.$schema).includes('2020-12') ? '2020-12' : '7';
    this.lookup = dereference(schema as Schema);
    this.batches = 'JSONRPCBatchRequest' in this.defs;
    this.resultTypes = 'InputRequiredResult' in this.defs;
    this.envelope = {
      request: 'JSONRPCRequest',
      notification: 'JSONRPCNotification',
      result: 'JSONRPCResultResponse' in this.defs ? 'JSONRPCResultResponse' : 'JSONRPCResponse',
      error: 'JSONRPCErrorResponse' in this.defs ? 'JSONRPCErrorResponse' : 'JSONRPCError',
    };
    for (const [name, def] of Object.entries(this.defs)) {
      const method = constOf(def, 'method');
      if (typeof method === 'string' && !isUnionName(name)) this.everyMethod.set(method, name);
      this.indexErrorDefinition(name, def);
    }
    this.sendable = {
      client: {
        request: this.methodsOf('ClientRequest'),
        notification: this.methodsOf('ClientNotification'),
      },
      server: {
        request: this.methodsOf('ServerRequest'),
        notification: this.methodsOf('ServerNotification'),
      },
    };
  }

  has(definition: string): boolean {
    return definition in this.defs;
  }

  /** Whether `definition` lists `property` among its own properties. */
  declares(definition: string, property: string): boolean {
    const props = this.defs[definition]?.properties;
    return isPlainObject(props) && property in props;
  }

  /** The definition for `method` when `sender` sends it as `kind`, or undefined when it may not. */
  messageDefinition(sender: Sender, kind: MessageKind, method: string): string | undefined {
    return this.sendable[sender][kind].get(method);
  }

  /** Why `method` cannot be sent by `sender` as `kind`, in words. */
  whyNotSendable(sender: Sender, kind: MessageKind, method: string): string {
    const other: Sender = sender === 'client' ? 'server' : 'client';
    if (this.sendable[other][kind].has(method)) {
      return `"${method}" is a ${other} ${kind} in revision ${this.revision}; a ${sender} does not send it`;
    }
    const otherKind: MessageKind = kind === 'request' ? 'notification' : 'request';
    if (this.sendable[sender][otherKind].has(method)) {
      return `"${method}" is a ${otherKind} in revision ${this.revision}, not a ${kind}`;
    }
    if (this.everyMethod.has(method)) {
      const inResults =
        this.resultTypes && this.unionMembers('InputRequest').includes(this.everyMethod.get(method)!);
      return inResults
        ? `"${method}" is not sent as a JSON-RPC ${kind} in revision ${this.revision}: it travels inside an InputRequiredResult`
        : `"${method}" is not a ${sender} ${kind} in revision ${this.revision}`;
    }
    return `method "${method}" does not exist in revision ${this.revision}`;
  }

  /** The result definition answering `method`: `XRequest` is answered by `XResult`, or by `EmptyResult`. */
  resultDefinition(method: string): string | undefined {
    const request = this.everyMethod.get(method);
    if (request === undefined || !request.endsWith('Request')) return undefined;
    const result = `${request.slice(0, -'Request'.length)}Result`;
    return this.has(result) ? result : 'EmptyResult';
  }

  /** Whether `method` may be answered with an `InputRequiredResult`: its params take `inputResponses`. */
  acceptsInputRequired(method: string): boolean {
    if (!this.resultTypes) return false;
    const request = this.everyMethod.get(method);
    const params = request === undefined ? undefined : (this.defs[request]?.properties as SchemaNode)?.params;
    return this.variants(params).some((p) => isPlainObject(p.properties) && 'inputResponses' in p.properties);
  }

  /** Typed error definitions for `code` (2025-11-25: -32042; 2026-07-28: the standard codes and -32020..-32022). */
  errorDefinitions(code: unknown): readonly ErrorDefinition[] {
    return typeof code === 'number' ? (this.errorsByCode.get(code) ?? []) : [];
  }

  /** Validates `instance` against `definition`; returns nothing when it is valid. */
  check(definition: string, instance: unknown): Finding[] {
    const schema = this.defs[definition];
    if (schema === undefined) throw new Error(`Revision ${this.revision} has no definition "${definition}"`);
    if (validate(instance, schema as Schema, this.draft, this.lookup, true).valid) return [];
    const { errors } = validate(instance, schema as Schema, this.draft, this.lookup, false);
    return explainErrors(errors as OutputUnit[], {
      root: schema,
      rootName: definition,
      instance,
      resolve: (node) => this.resolve(node),
      revision: this.revision,
    });
  }

  private resolve(node: SchemaNode): { schema: unknown; name?: string } {
    const absolute = (node as { __absolute_ref__?: string }).__absolute_ref__ ?? String(node.$ref);
    return { schema: this.lookup[absolute], name: definitionName(node.$ref) };
  }

  private methodsOf(union: string): Map<string, string> {
    const methods = new Map<string, string>();
    const def = this.defs[union];
    if (def === undefined) return methods;
    // A union with a single member is inlined by the schema generator (2026-07-28 ClientNotification).
    const members = Array.isArray(def.anyOf) ? this.unionMembers(union) : [union];
    for (const member of members) {
      const method = constOf(this.defs[member], 'method');
      if (typeof method === 'string') methods.set(method, this.everyMethod.get(method) ?? member);
    }
    return methods;
  }

  private unionMembers(union: string): string[] {
    const anyOf = this.defs[union]?.anyOf;
    if (!Array.isArray(anyOf)) return [];
    return anyOf
      .map((m) => definitionName(isPlainObject(m) ? m.$ref : undefined))
      .filter((n) => n !== undefined);
  }

  private variants(node: unknown, depth = 0): SchemaNode[] {
    if (!isPlainObject(node) || depth > 8) return [];
    const target = definitionName(node.$ref);
    if (target !== undefined) return this.variants(this.defs[target], depth + 1);
    if (Array.isArray(node.anyOf)) return node.anyOf.flatMap((m) => this.variants(m, depth + 1));
    return [node];
  }

  /** Indexes definitions whose error code is a const: at the error level (`ParseError`) or the response level (`HeaderMismatchError`). */
  private indexErrorDefinition(name: string, def: SchemaNode): void {
    const props = def.properties;
    if (!isPlainObject(props)) return;
    let code: unknown;
    let scope: ErrorDefinition['scope'];
    if ('jsonrpc' in props && isPlainObject(props.error)) {
      scope = 'response';
      const error = props.error;
      const parts = Array.isArray(error.allOf) ? error.allOf : [error];
      code = parts.map((p) => constOf(p, 'code')).find((c) => c !== undefined);
    } else if ('code' in props && 'message' in props) {
      scope = 'error';
      code = constOf(def, 'code');
    } else {
      return;
    }
    if (typeof code !== 'number') return;
    const list = this.errorsByCode.get(code) ?? [];
    list.push({ definition: name, scope });
    this.errorsByCode.set(code, list);
  }
}

function constOf(node: unknown, property: string): unknown {
  if (!isPlainObject(node) || !isPlainObject(node.properties)) return undefined;
  const prop = node.properties[property];
  return isPlainObject(prop) ? prop.const : undefined;
}

const isUnionName = (name: string) => /^(Client|Server)(Request|Notification)$/.test(name);
