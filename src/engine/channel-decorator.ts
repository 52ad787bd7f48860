/**
 * The base of every channel that wraps another to watch or add to what passes (the console's trace,
 * the schema check, the gateway's close watch): it forwards every member of `Channel`, the optional
 * ones included, so a decorator cannot change how the engine treats the channel underneath by
 * forgetting one. A decorator overrides only what it adds to.
 */
import type { ProtocolError } from '../protocol/errors.js';
import type { RequestId } from '../protocol/jsonrpc.js';
import type { Era } from '../protocol/revisions.js';
import type { Channel, ChannelSink, FrameInfo, InboundExtra } from './channel.js';

/**
 * Every member of `T`, required (optional ones may be undefined): a member added to `Channel` or
 * `ChannelSink` and not forwarded here fails to compile. An optional method the wrapped channel
 * lacks reads as undefined (absent), as the engine expects.
 */
type EveryMember<T> = { readonly [K in keyof Required<T>]: T[K] };

export class ChannelDecorator implements EveryMember<Channel> {
  constructor(protected readonly inner: Channel) {}

  get label(): string | undefined {
    return this.inner.label;
  }

  get preferredEra(): Era | undefined {
    return this.inner.preferredEra;
  }

  get firstRequestId(): number | undefined {
    return this.inner.firstRequestId;
  }

  get closeRequestStream(): ((id: RequestId) => boolean) | undefined {
    const { inner } = this;
    const own = inner.closeRequestStream;
    return own && ((id) => own.call(inner, id));
  }

  get canPush(): (() => boolean) | undefined {
    const { inner } = this;
    const own = inner.canPush;
    return own && (() => own.call(inner));
  }

  start(sink: ChannelSink): void {
    const forwarding: EveryMember<ChannelSink> = {
      message: (value, extra) => this.received(value, extra, sink),
      malformed: (error) => this.malformed(error, sink),
      closed: (error) => this.closed(error, sink),
      renewed: () => this.renewed(sink),
      logger: sink.logger,
    };
    this.inner.start(forwarding);
  }

  send(frame: string, info?: FrameInfo): void {
    this.inner.send(frame, info);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** One inbound value on its way to `sink`; override to watch it (and call super). */
  protected received(value: unknown, extra: InboundExtra | undefined, sink: ChannelSink): void {
    sink.message(value, extra);
  }

  /** An undecodable inbound frame on its way to `sink`. */
  protected malformed(error: ProtocolError, sink: ChannelSink): void {
    sink.malformed(error);
  }

  /** The wrapped channel closed; override to learn of it (and call super). */
  protected closed(error: Error | undefined, sink: ChannelSink): void {
    sink.closed(error);
  }

  /** The wrapped channel renewed its session (see `ChannelSink.renewed`); override to learn of it (and call super). */
  protected renewed(sink: ChannelSink): void {
    sink.renewed?.();
  }
}
