import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { type Channel, type ChannelSink, Client, ErrorCode, ProtocolError, Server } from 'switchboard';

/**
 * A Channel over a worker_threads MessagePort (the same idea works for a WebSocket, a browser
 * MessagePort or a socket). The contract: start() is called once with a sink; send() queues one
 * serialized frame and never throws; inbound frames go to sink.message() decoded, or to
 * sink.malformed() if they cannot be; close() releases everything; sink.closed() is called once.
 */
class MessagePortChannel implements Channel {
  readonly label = 'message port';
  #sink: ChannelSink | undefined;
  #closed = false;
  readonly #done: Promise<void>;

  constructor(private readonly port: MessagePort) {
    // Either side closing the port closes both.
    this.#done = new Promise((resolve) =>
      port.once('close', () => {
        this.#closed = true;
        this.#sink?.closed();
        resolve();
      }),
    );
  }

  start(sink: ChannelSink): void {
    this.#sink = sink;
    this.port.on('message', (data: unknown) => {
      let value: unknown;
      try {
        value = JSON.parse(String(data));
      } catch (error) {
        sink.malformed(
          new ProtocolError(ErrorCode.ParseError, `Received a frame that is not JSON: ${error}`),
        );
        return;
      }
      sink.message(value);
    });
  }

  send(frame: string): void {
    if (!this.#closed) this.port.postMessage(frame);
  }

  close(): Promise<void> {
    this.port.close();
    return this.#done;
  }
}

const server = new Server({ name: 'over-a-port', version: '1.0.0' });
server.registerTool('hello', {}, () => 'hello through a MessagePort');

const { port1, port2 } = new MessageChannel();
const connection = server.connect(new MessagePortChannel(port2));
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(new MessagePortChannel(port1));
console.log(client.revision, (await client.callTool('hello')).content);
await client.close();
await connection.closed;
console.log('both ends closed');

// Output:
// 2026-07-28 [ { type: 'text', text: 'hello through a MessagePort' } ]
// both ends closed
