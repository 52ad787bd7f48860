/**
 * The console's state: the connections it holds and the event log the page reads. No HTTP here:
 * `api.ts` maps requests onto these methods.
 */
import type { ConnectionSummary, ConnectRequest, OperationName, Operations, Question } from './api-types.js';
import { BadRequest, ConsoleConnection } from './connection.js';
import { EventLog } from './event-log.js';

export class ConsoleService {
  readonly events = new EventLog();
  readonly #connections = new Map<string, ConsoleConnection>();
  #next = 1;

  /** Connects (awaiting negotiation); a failed connection is kept, with its error, for the page to show. */
  async connect(request: ConnectRequest): Promise<ConnectionSummary> {
    const connection = new ConsoleConnection(`c${this.#next++}`, request, this.events);
    this.#connections.set(connection.id, connection);
    await connection.connect();
    return connection.summary;
  }

  list(): ConnectionSummary[] {
    return [...this.#connections.values()].map((c) => c.summary);
  }

  /** The first open connection to a `switchboard gateway`, for the fleet view. */
  gatewayConnection(): ConsoleConnection | undefined {
    return [...this.#connections.values()].find(
      (c) => c.summary.state === 'open' && c.summary.gateway !== undefined,
    );
  }

  questions(): Question[] {
    return [...this.#connections.values()].flatMap((c) => c.questions());
  }

  async remove(id: string): Promise<void> {
    const connection = this.get(id);
    this.#connections.delete(id);
    await connection.close();
    this.events.push({ kind: 'removed', connectionId: id });
  }

  run<K extends OperationName>(id: string, op: K, body: unknown): Promise<Operations[K]['result']> {
    return this.get(id).run(op, body);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((c) => c.close()));
  }

  private get(id: string): ConsoleConnection {
    const connection = this.#connections.get(id);
    if (!connection) throw new BadRequest(`There is no connection "${id}"; it may have been closed.`);
    return connection;
  }
}
