/**
 * A Channel wrapper that checks every frame crossing it against the JSON Schema of the revision in
 * use, so a test proves that what Switchboard puts on the wire is what that revision defines.
 *
 * The revision is learned from the traffic, as a peer would:
 * - legacy: the `initialize` request names the revision the client wants; the `initialize` result
 *   names the one negotiated, used for everything after it on the connection;
 * - modern: every request names its own in `_meta["io.modelcontextprotocol/protocolVersion"]`; its
 *   response is checked under the same revision, and so are notifications tied to it (a listen
 *   stream's `subscriptionId`, a cancelled `requestId`); other notifications use the latest request's.
 * Only the frames this side sends must be valid. The peer's frames are checked too (the checker needs
 * its requests to pair our responses with), and by default only reported: an official SDK on the
 * other end is not ours to fix.
 */
import type { Channel, ChannelSink, FrameInfo, InboundExtra } from '../engine/channel.js';
import { ChannelDecorator } from '../engine/channel-decorator.js';
import {
  isLegacyRevision,
  isModernRevision,
  LATEST_LEGACY_REVISION,
  LATEST_REVISION,
  type Revision,
} from '../protocol/revisions.js';
import { isPlainObject } from '../util/guards.js';
import { MessageSchemaChecker } from './message-schema-checker.js';
import type { Sender } from './revision-schema.js';
import type { SchemaCatalog } from './schema-catalog.js';
import { makeViolation, type SchemaViolation, SchemaViolationError } from './schema-violation.js';

export interface SchemaCheckedChannelOptions {
  /** The schemas to check against (`await loadSchemaCatalog()`). */
  readonly catalog: SchemaCatalog;
  /** Which end of the connection this channel belongs to: the frames it sends are ours. */
  readonly side: Sender;
  /** Close every object the spec defines field by field (default true); see `strict-schema.ts`. */
  readonly strict?: boolean;
  /** Check everything under this revision instead of learning it from the traffic. */
  readonly revision?: Revision;
  /**
   * The peer's violations: `report` (default) keeps them in {@link SchemaCheckedChannel.violations}
   * and passes them to `onViolation`, `assert` also makes `assertClean()` fail on them, `ignore`
   * drops them.
   */
  readonly peer?: 'report' | 'assert' | 'ignore';
  /** Called synchronously for each violation kept (default: only collect). Should not throw. */
  readonly onViolation?: (violation: SchemaViolation) => void;
  /** Names the channel in violations and in the `assertClean()` error. */
  readonly label?: string;
}

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';

const field = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, key) => (isPlainObject(v) ? v[key] : undefined), value);

export class SchemaCheckedChannel extends ChannelDecorator {
  private readonly checker: MessageSchemaChecker;
  private readonly kept: SchemaViolation[] = [];
  /** Legacy: the revision the `initialize` exchange settled on. */
  private negotiated: Revision | undefined;
  /** Legacy: the revision the pending `initialize` request asked for. */
  private requested: Revision | undefined;
  /** Modern: the revision of the latest request. */
  private latestModern: Revision | undefined;

  constructor(
    inner: Channel,
    private readonly options: SchemaCheckedChannelOptions,
  ) {
    super(inner);
    this.checker = new MessageSchemaChecker(options.catalog, { strict: options.strict ?? true });
  }

  override get label(): string | undefined {
    return this.options.label ?? this.inner.label;
  }

  /** The revision in use: pinned, negotiated (legacy) or the latest request's (modern). */
  get revision(): Revision | undefined {
    return this.options.revision ?? this.negotiated ?? this.latestModern ?? this.requested;
  }

  protected override received(value: unknown, extra: InboundExtra | undefined, sink: ChannelSink): void {
    this.observe(value, this.options.side === 'client' ? 'server' : 'client');
    super.received(value, extra, sink);
  }

  override send(frame: string, info?: FrameInfo): void {
    let value: unknown;
    try {
      value = JSON.parse(frame);
    } catch (error) {
      this.keep([
        this.unchecked(this.options.side, 'json', `the frame is not JSON: ${(error as Error).message}`),
      ]);
    }
    if (value !== undefined) this.observe(value, this.options.side);
    super.send(frame, info);
  }

  /** Every violation kept so far (ours, and the peer's unless `peer: 'ignore'`), in order. */
  violations(): readonly SchemaViolation[] {
    return [...this.kept];
  }

  /** Throws a {@link SchemaViolationError} if a frame this side sent (or the peer's, with `peer: 'assert'`) was invalid. */
  assertClean(): void {
    const failing = this.kept.filter((v) => v.sender === this.options.side || this.options.peer === 'assert');
    if (failing.length > 0)
      throw new SchemaViolationError(failing, this.label ?? `the ${this.options.side}'s frames`);
  }

  private observe(value: unknown, sender: Sender): void {
    const messages = Array.isArray(value) ? value : [value];
    // Resolve before checking: the checker forgets a request once it sees the response.
    const revisions = messages.map((m) => this.revisionOf(m, sender));
    const revision =
      revisions.find((r) => r !== undefined) ?? (this.allErrors(messages) ? LATEST_REVISION : undefined);
    if (revision === undefined) {
      this.keep([
        this.unchecked(
          sender,
          'revision',
          `cannot tell which protocol revision this message belongs to: no initialize exchange yet and no _meta["${META_VERSION}"]`,
          value,
        ),
      ]);
      return;
    }
    this.keep(this.checker.checkMessage(revision, sender, value, this.label ? { label: this.label } : {}));
  }

  /** The revision one message belongs to; learns from `initialize` and modern `_meta` on the way. */
  private revisionOf(message: unknown, sender: Sender): Revision | undefined {
    const pinned = this.options.revision;
    if (!isPlainObject(message)) return pinned;
    if ('method' in message) {
      if (message.method === 'initialize' && 'id' in message) {
        const asked = field(message, 'params', 'protocolVersion');
        // Only a legacy revision has `initialize`; any other version (unknown, or a client probing with
        // a modern one) is checked as the newest legacy revision.
        this.requested = isLegacyRevision(asked) ? asked : LATEST_LEGACY_REVISION;
        return pinned ?? this.requested;
      }
      const version = field(message, 'params', '_meta', META_VERSION);
      if (isModernRevision(version) && 'id' in message) this.latestModern = version;
      if (pinned) return pinned;
      if (isModernRevision(version)) return version;
      // A cancellation names a request of either side (on 2026-07-28 stdio, the server cancels a listen stream).
      const cancelled =
        message.method === 'notifications/cancelled' ? field(message, 'params', 'requestId') : undefined;
      const related =
        this.checker.pendingRequest('client', field(message, 'params', '_meta', META_SUBSCRIPTION)) ??
        this.checker.pendingRequest(sender, cancelled) ??
        this.checker.pendingRequest(sender === 'client' ? 'server' : 'client', cancelled);
      return related?.revision ?? this.negotiated ?? this.latestModern ?? this.requested;
    }
    const answered = this.checker.pendingRequest(sender === 'client' ? 'server' : 'client', message.id);
    if (answered?.method === 'initialize') {
      const agreed = field(message, 'result', 'protocolVersion');
      if (isLegacyRevision(agreed)) this.negotiated = agreed;
    }
    const settled = answered?.method === 'initialize' ? this.negotiated : undefined;
    return pinned ?? settled ?? answered?.revision ?? this.revision;
  }

  /** Error responses look the same in every revision: with no revision known, the latest one checks them. */
  private allErrors(messages: readonly unknown[]): boolean {
    return messages.length > 0 && messages.every((m) => isPlainObject(m) && 'error' in m && !('method' in m));
  }

  private unchecked(sender: Sender, keyword: string, reason: string, value?: unknown): SchemaViolation {
    return makeViolation({
      revision: this.revision ?? 'unknown',
      sender,
      definition: 'JSONRPCMessage',
      pointer: '',
      value,
      keyword,
      reason,
      schemaLocation: 'JSONRPCMessage',
      ...(this.label === undefined ? {} : { label: this.label }),
    });
  }

  private keep(found: readonly SchemaViolation[]): void {
    for (const violation of found) {
      if (violation.sender !== this.options.side && this.options.peer === 'ignore') continue;
      this.kept.push(violation);
      this.options.onViolation?.(violation);
    }
  }
}
