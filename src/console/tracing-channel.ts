/**
 * A Channel that shows every JSON-RPC frame to an observer on its way through, in both directions,
 * and otherwise behaves exactly like the channel it wraps (its optional abilities included), so the
 * client negotiates and streams as it would without the console watching.
 */
import type { Channel, ChannelSink, FrameInfo } from '../engine/channel.js';
import type { RequestId } from '../protocol/jsonrpc.js';
import type { Era } from '../protocol/revisions.js';

/** `out`: a frame the client sent; `in`: one the server sent (a batch arrives as one array). */
export type TraceObserver = (direction: 'out' | 'in', message: unknown) => void;

export class TracingChannel implements Channel {
  readonly closeRequestStream?: (id: RequestId) => boolean;
  readonly canPush?: () => boolean;

  constructor(
    private readonly inner: Channel,
    private readonly observe: TraceObserver,
  ) {
    const { closeRequestStream, canPush } = inner;
    // Present only when the inner channel has them: their absence means something to the engine.
    if (closeRequestStream) this.closeRequestStream = (id) => closeRequestStream.call(inner, id);
    if (canPush) this.canPush = () => canPush.call(inner);
  }

  get label(): string | undefined {
    return this.inner.label;
  }

  get preferredEra(): Era | undefined {
    return this.inner.preferredEra;
  }

  start(sink: ChannelSink): void {
    this.inner.start({
      message: (value, extra) => {
        this.observe('in', value);
        sink.message(value, extra);
      },
      malformed: (error) => sink.malformed(error),
      closed: (error) => sink.closed(error),
      logger: sink.logger,
    });
  }

  send(frame: string, info?: FrameInfo): void {
    let message: unknown;
    try {
      message = JSON.parse(frame);
    } catch {
      // The engine only sends JSON; should that ever break, the trace still shows what went out.
      message = frame;
    }
    this.observe('out', message);
    this.inner.send(frame, info);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
