/**
 * Schema checks for HTTP traffic: every message a client sends and every message the server answers
 * (JSON bodies and SSE events) goes through a {@link SchemaCheckedChannel} on the server's side, which
 * learns the revision from the traffic (initialize exchange, modern `_meta`) and checks each message
 * against that revision's official schema. `assertClean()` fails on anything the server sent wrong.
 *
 * One WireCheck follows one logical connection: a legacy session, or a series of modern requests.
 */
import { createParser } from 'eventsource-parser';
import type { Channel, ChannelSink } from '../../../src/engine/channel.js';
import { loadSchemaCatalog } from '../../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../../src/testing/schema-checked-channel.js';

export class WireCheck {
  readonly #checked: SchemaCheckedChannel;
  #inbound!: ChannelSink;
  /** Background readers of teed SSE bodies; awaited by `settled()`. */
  readonly #readers = new Set<Promise<void>>();

  private constructor(checked: SchemaCheckedChannel, inbound: { sink?: ChannelSink }) {
    this.#checked = checked;
    this.#checked.start({ message() {}, malformed() {}, closed() {} });
    this.#inbound = inbound.sink!;
  }

  static async create(label = 'http server'): Promise<WireCheck> {
    const catalog = await loadSchemaCatalog();
    const holder: { sink?: ChannelSink } = {};
    // The checked channel's "inner" end only exists to learn what the client sends.
    const inner: Channel = {
      start(sink) {
        holder.sink = sink;
      },
      send() {},
      close: () => Promise.resolve(),
    };
    return new WireCheck(
      new SchemaCheckedChannel(inner, { catalog, side: 'server', peer: 'report', label }),
      holder,
    );
  }

  /** A message the client sent. */
  client(message: unknown): void {
    this.#inbound.message(message);
  }

  /** Every message the server sent, in order. */
  readonly sent: unknown[] = [];

  /** A message the server sent. */
  server(message: unknown): void {
    this.sent.push(message);
    this.#checked.send(JSON.stringify(message));
  }

  /** Fails on any schema violation in what the server sent. */
  assertClean(): void {
    this.#checked.assertClean();
  }

  /** Waits until every SSE body being watched has ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.#readers]);
  }

  /** Waits until every SSE body being watched has ended, then fails on any violation of the server. */
  async assertCleanWhenSettled(): Promise<void> {
    await this.settled();
    this.assertClean();
  }

  /**
   * A `fetch` that checks what crosses it: give it to an official client transport. SSE bodies are
   * teed: the client reads one branch, the check reads the other.
   */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (typeof init?.body === 'string' && init.body.length > 0) this.client(JSON.parse(init.body));
    const response = await fetch(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (type.startsWith('application/json')) {
      const text = await response.clone().text();
      if (text.length > 0) this.server(JSON.parse(text));
      return response;
    }
    if (type.startsWith('text/event-stream') && response.body) {
      let done!: () => void;
      const reader = new Promise<void>((resolve) => {
        done = resolve;
      });
      this.#readers.add(reader);
      void reader.finally(() => this.#readers.delete(reader));
      // Node 20's fetch may leave a pending body read unsettled when the request is aborted (the
      // official clients abort on close): stop waiting for such a stream then.
      init?.signal?.addEventListener('abort', () => done(), { once: true });
      return new Response(this.#watch(response.body, done), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    return response;
  };

  /**
   * Reads `body` to its end in the background, checking each event, and hands every chunk on to
   * the client through the returned stream (a tee whose other branch never lags the client).
   */
  #watch(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
    const parser = createParser({
      onEvent: (event) => {
        if (event.data.length === 0 || (event.event !== undefined && event.event !== 'message')) return;
        this.server(JSON.parse(event.data));
      },
    });
    const decoder = new TextDecoder();
    const source = body.getReader();
    let cancelled = false;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        void (async () => {
          let failure: unknown;
          try {
            for (;;) {
              const { done: ended, value } = await source.read();
              if (ended) break;
              parser.feed(decoder.decode(value, { stream: true }));
              if (!cancelled) controller.enqueue(value);
            }
          } catch (error) {
            failure = error;
          }
          if (!cancelled) {
            if (failure === undefined) controller.close();
            else controller.error(failure);
          }
          done();
        })();
      },
      cancel(reason) {
        cancelled = true;
        return source.cancel(reason);
      },
    });
  }
}
