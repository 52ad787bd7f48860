/**
 * The HTTP+SSE transport of 2024-11-05 (deprecated, still served for old clients): `GET /sse` opens
 * the session's only stream and announces, in an `endpoint` event, the URL to POST messages to
 * (`/messages?sessionId=…`). Each POST is answered 202; everything the server sends, responses
 * included, travels on the stream as `message` events. The session lives as long as the stream.
 */
import type { Channel, ChannelSink } from '../../../engine/channel.js';
import type { ServerConnection } from '../../../server/connection.js';
import {
  acceptedReply,
  congestedReply,
  type HttpExchange,
  type HttpReply,
  inboundExtra,
} from './exchange.js';
import type { SessionScope } from './sessions.js';
import { SSE_HEADERS, SseStream } from './sse.js';

export class SseSession implements Channel {
  readonly kind = 'sse';
  readonly label: string;
  lastActive = Date.now();
  usedAt = 0;
  readonly stream: SseStream;
  readonly connection: ServerConnection;
  #sink: ChannelSink | undefined;
  #closed = false;

  constructor(
    private readonly scope: SessionScope,
    readonly id: string,
  ) {
    this.label = `HTTP+SSE session ${id.slice(0, 8)}`;
    this.stream = new SseStream(scope.streams);
    this.stream.owner = this.label;
    this.stream.event(
      `${scope.options.messagesEndpoint}?sessionId=${encodeURIComponent(id)}`,
      undefined,
      'endpoint',
    );
    // The stream is the session: when the client leaves, the session ends.
    this.stream.onClientGone = () => {
      this.terminate().catch(scope.options.onerror);
    };
    this.connection = scope.server.connect(this);
  }

  /** The reply to the GET that opened the session. */
  get reply(): HttpReply {
    return { status: 200, headers: SSE_HEADERS as Record<string, string>, stream: this.stream };
  }

  get busy(): boolean {
    return this.stream.open;
  }

  terminate(): Promise<void> {
    return this.connection.close();
  }

  /**
   * A POST to the messages endpoint: delivered; whatever answers it goes on the stream. Refused with
   * 503 while the client lets the stream's answers pile up unread.
   */
  post(exchange: HttpExchange, body: unknown): HttpReply {
    this.lastActive = Date.now();
    if (this.stream.congested) return congestedReply(this.stream.buffered);
    this.#sink?.message(body, inboundExtra(exchange));
    return acceptedReply();
  }

  start(sink: ChannelSink): void {
    this.#sink = sink;
  }

  send(frame: string): void {
    this.stream.event(frame, undefined, 'message');
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.stream.end();
    this.scope.closed(this);
    return Promise.resolve();
  }
}
