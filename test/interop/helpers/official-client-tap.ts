/**
 * Schema checks when the client is an official SDK and the server is ours. We cannot wrap our
 * server's stdio from the outside, so we tap the official client's transport instead: what it sends
 * (the client's frames) and what its `onmessage` receives (our server's frames). Both feed a
 * SchemaCheckedChannel playing the server's side, which learns the revision from the traffic
 * (`initialize`, or each request's `_meta`) exactly as it does around a real channel; the server's
 * frames are ours and must be valid, the official client's are only reported.
 */
import type { ChannelSink } from '../../../src/engine/channel.js';
import type { SchemaCatalog } from '../../../src/testing/schema-catalog.js';
import { SchemaCheckedChannel } from '../../../src/testing/schema-checked-channel.js';
import type { SchemaViolation } from '../../../src/testing/schema-violation.js';

/** The parts of an official transport (v1 or v2 `StdioClientTransport`) the tap touches. */
export interface TappableTransport {
  send(message: any, options?: any): Promise<void>;
  onmessage?: ((message: any, extra?: any) => void) | undefined;
  readonly pid: number | null;
}

export class OfficialClientTap {
  private readonly observers: SchemaCheckedChannel[] = [];
  /** What the server sent, in arrival order, on every tapped connection. */
  readonly received: any[] = [];
  /** Every child process a tapped transport ran (recorded at its first send). */
  readonly pids = new Set<number>();

  constructor(private readonly catalog: SchemaCatalog) {}

  /** Taps one transport: one connection, checked on its own. Returns the transport. */
  attach<T extends TappableTransport>(transport: T, label: string): T {
    let toObserver: ChannelSink | undefined;
    const observer = new SchemaCheckedChannel(
      {
        start: (sink) => {
          toObserver = sink;
        },
        send: () => {},
        close: async () => {},
      },
      { catalog: this.catalog, side: 'server', label },
    );
    observer.start({ message: () => {}, malformed: () => {}, closed: () => {} });
    this.observers.push(observer);

    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (transport.pid !== null) this.pids.add(transport.pid);
      toObserver!.message(message);
      return send(message, options);
    };
    // The SDK sets `onmessage` (and may chain handlers through it): hand out a wrapper that shows
    // each message to the observer once, then to whatever handler was set.
    const seen = new WeakSet<object>();
    let handler: ((message: any, extra?: any) => void) | undefined;
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      enumerable: true,
      get: () =>
        handler &&
        ((message: any, extra?: any) => {
          if (typeof message === 'object' && message !== null && !seen.has(message)) {
            seen.add(message);
            this.received.push(message);
            observer.send(JSON.stringify(message));
          }
          handler!(message, extra);
        }),
      set: (fn) => {
        handler = fn;
      },
    });
    return transport;
  }

  /**
   * The v2 client probes `server/discover` on a disposable sibling process, built with
   * `new transport.constructor(params)`: give the instance a constructor that builds a tapped one,
   * so the probe is checked too (its prototype stays the SDK's, which is what selects the sibling path).
   */
  tapProbeSiblings<T extends TappableTransport>(transport: T, create: (params: any) => T): T {
    const tap = this;
    Object.defineProperty(transport, 'constructor', {
      configurable: true,
      value: function ProbeSibling(params: unknown) {
        return tap.attach(create(params), 'probe sibling');
      },
    });
    return transport;
  }

  /** The revision each tapped connection settled on, as learned from its traffic. */
  revisions(): (string | undefined)[] {
    return this.observers.map((o) => o.revision);
  }

  violations(): SchemaViolation[] {
    return this.observers.flatMap((o) => o.violations());
  }

  /** The official client's violations: reported, never failed on. */
  peerViolations(): SchemaViolation[] {
    return this.violations().filter((v) => v.sender === 'client');
  }

  /** Throws if anything our server sent broke its revision's schema. */
  assertClean(): void {
    for (const observer of this.observers) observer.assertClean();
  }

  /** How many connections were tapped (the session, plus a v2 probe sibling). */
  get connections(): number {
    return this.observers.length;
  }
}
