/**
 * One node's connections to Redis: a command connection (auto-pipelined: the commands a tick issues
 * leave in one write) and a subscriber connection for the pub/sub channel every store shares. Each
 * message on the channel names its kind and the node that sent it; a node ignores its own messages,
 * since it has already acted on them locally.
 *
 * Both connections fail fast while Redis is down (no offline queue: a request that needs shared state
 * gets a clear error at once instead of waiting) and reconnect on their own; the subscriber
 * re-subscribes each time it is ready.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { ErrorCode, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import { newNonce } from '../server/request-state.js';
import { asError, errorMessage } from '../util/guards.js';
import { type Logger, silentLogger } from '../util/logger.js';

/** The kinds of messages on the shared channel. */
export type MessageKind = 'change' | 'task' | 'keys' | 'session' | 'pins' | 'task-keys';

interface Envelope {
  /** The sending node. */
  readonly o: string;
  readonly k: MessageKind;
  readonly b: unknown;
}

export interface RedisConnectionOptions {
  readonly url: string;
  /** Prepended to every key and channel, so several deployments share one Redis. */
  readonly prefix: string;
  readonly logger: Logger | undefined;
  /** Extra ioredis options (TLS, username, password...). */
  readonly redisOptions?: RedisOptions | undefined;
}

export class RedisConnection {
  /** Random per node: tells this node's messages from the others'. */
  readonly nodeId = newNonce();
  readonly prefix: string;
  readonly command: Redis;
  readonly #subscriber: Redis;
  /** The pub/sub channel every store of the deployment shares. */
  readonly channel: string;
  readonly #handlers = new Map<MessageKind, (body: unknown) => void>();
  readonly #where: string;
  readonly #logger: Logger;

  private constructor(options: RedisConnectionOptions) {
    this.prefix = options.prefix;
    this.channel = `${options.prefix}bus`;
    this.#logger = options.logger ?? silentLogger;
    this.#where = describeUrl(options.url);
    const redisOptions: RedisOptions = {
      lazyConnect: true,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      maxRetriesPerRequest: 1,
      // Back on its own: retry every 100 ms growing to 2 s, for ever (a node must not need a restart).
      retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
      ...options.redisOptions,
    };
    this.command = new Redis(options.url, redisOptions);
    // ioredis's own re-subscription on reconnect leaves a failure unhandled (a connection lost again
    // at once), which would end the process: this one reports it and tries again.
    this.#subscriber = new Redis(options.url, {
      ...redisOptions,
      enableAutoPipelining: false,
      autoResubscribe: false,
    });
    this.#subscriber.on('ready', () => {
      this.#subscriber.subscribe(this.channel).catch((error: Error) => {
        this.#reportOutage(error);
        this.#subscriber.disconnect(true);
      });
    });
    for (const client of [this.command, this.#subscriber]) {
      // ioredis reports each failed reconnection; one line per outage is enough.
      client.on('error', (error: Error) => this.#reportOutage(error));
      client.on('ready', () => {
        this.#down = false;
      });
    }
    this.#subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.#dispatch(text);
    });
  }

  #down = false;

  /** The last connection error: why a connection failed, when ioredis says only that it closed. */
  #lastError: Error | undefined;

  #reportOutage(error: Error): void {
    this.#lastError = error;
    if (this.#down) return;
    this.#down = true;
    this.#logger.warn(`Redis at ${this.#where} is unreachable (${error.message}); retrying.`);
  }

  /** Connects both connections and subscribes to the shared channel. */
  static async open(options: RedisConnectionOptions): Promise<RedisConnection> {
    const connection = new RedisConnection(options);
    try {
      await Promise.all([connection.command.connect(), connection.#subscriber.connect()]);
      // Subscribed on 'ready' too; this says when it is done (a second SUBSCRIBE changes nothing).
      await connection.#subscriber.subscribe(connection.channel);
    } catch (error) {
      connection.close();
      throw new SwitchboardError(
        'CONFIG',
        `Cannot reach Redis at ${connection.#where} (${(connection.#lastError?.message ?? errorMessage(error)).replace(/\.$/, '')}). Check the url, and that Redis is running and reachable.`,
      );
    }
    return connection;
  }

  /** Handles messages of `kind` sent by other nodes. */
  on(kind: MessageKind, handler: (body: unknown) => void): void {
    this.#handlers.set(kind, handler);
  }

  /** Sends a message to the other nodes. Failures are reported, never thrown: pub/sub is best effort. */
  publish(kind: MessageKind, body: unknown): void {
    this.command.publish(this.channel, this.message(kind, body)).catch((error: unknown) => {
      this.#logger.warn(
        `Could not tell the other nodes about a ${kind} change: ${this.unavailable(error).message}`,
      );
    });
  }

  /** A message for the shared channel, as {@link publish} sends it (for scripts that publish). */
  message(kind: MessageKind, body: unknown): string {
    const envelope: Envelope = { o: this.nodeId, k: kind, b: body };
    return JSON.stringify(envelope);
  }

  /** The key for `name` under this deployment's prefix. */
  key(name: string): string {
    return this.prefix + name;
  }

  /** A Redis failure as the error a request fails with: what is down and what to do. */
  unavailable(error: unknown): ProtocolError {
    if (error instanceof ProtocolError) return error;
    return new ProtocolError(
      ErrorCode.InternalError,
      `Shared state is unavailable (Redis at ${this.#where}: ${asError(error).message}); this request needs it. Try again shortly.`,
    );
  }

  /** Runs `work`, turning a Redis failure into {@link unavailable}. */
  async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  close(): void {
    this.command.disconnect();
    this.#subscriber.disconnect();
  }

  #dispatch(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      return;
    }
    if (envelope.o === this.nodeId) return;
    try {
      this.#handlers.get(envelope.k)?.(envelope.b);
    } catch (error) {
      this.#logger.warn(`A ${envelope.k} message from another node failed: ${asError(error).message}`);
    }
  }
}

/** The url without its credentials, for messages. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    throw new SwitchboardError(
      'CONFIG',
      `Invalid Redis url ${JSON.stringify(url)}: use redis://host:port (or rediss:// for TLS).`,
    );
  }
}
