/**
 * A Channel that shows every JSON-RPC frame to an observer on its way through, in both directions,
 * and otherwise behaves exactly like the channel it wraps (its optional abilities included, by way
 * of ChannelDecorator), so the client negotiates and streams as it would without the console watching.
 */
import type { Channel, ChannelSink, FrameInfo, InboundExtra } from '../engine/channel.js';
import { ChannelDecorator } from '../engine/channel-decorator.js';

/** `out`: a frame the client sent; `in`: one the server sent (a batch arrives as one array). */
export type TraceObserver = (direction: 'out' | 'in', message: unknown) => void;

export class TracingChannel extends ChannelDecorator {
  constructor(
    inner: Channel,
    private readonly observe: TraceObserver,
  ) {
    super(inner);
  }

  override send(frame: string, info?: FrameInfo): void {
    let message: unknown;
    try {
      message = JSON.parse(frame);
    } catch {
      // The engine only sends JSON; should that ever break, the trace still shows what went out.
      message = frame;
    }
    this.observe('out', message);
    super.send(frame, info);
  }

  protected override received(value: unknown, extra: InboundExtra | undefined, sink: ChannelSink): void {
    this.observe('in', value);
    super.received(value, extra, sink);
  }
}
