/**
 * Bridges an official SDK transport (v1 or v2: both have `start/send/close` and `onmessage`) to a
 * Switchboard Channel, so a Switchboard server or client talks to an official client or server in
 * memory. Our side's frames are schema-checked; the official side's are only reported.
 */
import type { Channel, ChannelSink } from '../../src/engine/channel.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';

export interface OfficialTransport {
  onmessage?: ((message: any, extra?: any) => void) | undefined;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  start(): Promise<void>;
  send(message: any): Promise<void>;
  close(): Promise<void>;
}

class TransportChannel implements Channel {
  readonly label = 'official transport';
  constructor(private readonly transport: OfficialTransport) {}
  start(sink: ChannelSink): void {
    this.transport.onmessage = (message) => sink.message(message);
    this.transport.onclose = () => sink.closed();
    void this.transport.start();
  }
  send(frame: string): void {
    this.transport.send(JSON.parse(frame)).catch(() => undefined);
  }
  close(): Promise<void> {
    return this.transport.close();
  }
}

/** A schema-checked Channel over an official transport; `side` is the Switchboard end. */
export async function bridge(
  transport: OfficialTransport,
  side: 'client' | 'server',
): Promise<SchemaCheckedChannel> {
  return new SchemaCheckedChannel(new TransportChannel(transport), {
    catalog: await loadSchemaCatalog(),
    side,
    peer: 'report',
    label: `switchboard ${side}`,
  });
}
