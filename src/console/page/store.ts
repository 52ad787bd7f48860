/**
 * What the page knows, folded from the console's event stream: the connections, and per connection
 * its trace, logs, the progress of its calls and the questions waiting for an answer. Mutable, with
 * a version number the components re-render on (a long trace is appended to, never copied).
 */
import { useEffect, useState } from 'preact/hooks';
import type { CallToolResult } from '../../protocol/types.js';
import type { ApiError, ConnectionSummary, ConsoleEvent, Question } from '../api-types.js';

export type TraceEntry = Extract<ConsoleEvent, { kind: 'trace' }>;
export type LogEntry = Extract<ConsoleEvent, { kind: 'log' | 'stderr' }>;
export type ProgressEntry = Extract<ConsoleEvent, { kind: 'progress' }>;
export type NotificationEntry = Extract<ConsoleEvent, { kind: 'notification' }>;

/** A tool call made from the page, kept so it can be replayed or edited. */
export interface HistoryEntry {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly at: number;
  readonly ms: number;
  readonly result?: CallToolResult;
  readonly error?: ApiError;
}

/** Calls kept per connection; the oldest go first. */
const HISTORY_KEPT = 200;

export interface PendingQuestion {
  readonly connectionId: string;
  readonly question: Question;
}

class Store {
  version = 0;
  live = false;
  readonly connections = new Map<string, ConnectionSummary>();
  readonly traces = new Map<string, TraceEntry[]>();
  readonly logs = new Map<string, LogEntry[]>();
  readonly notifications = new Map<string, NotificationEntry[]>();
  /** The latest progress of each call, by callId. */
  readonly progress = new Map<string, ProgressEntry>();
  readonly questions = new Map<string, PendingQuestion>();
  /** The latest line of the check running on each connection. */
  readonly checkProgress = new Map<string, string>();
  readonly #listeners = new Set<() => void>();
  #scheduled = false;

  apply(event: ConsoleEvent): void {
    switch (event.kind) {
      case 'connection':
        this.connections.set(event.connection.id, event.connection);
        break;
      case 'removed':
        this.connections.delete(event.connectionId);
        break;
      case 'trace':
        listOf(this.traces, event.connectionId).push(event);
        break;
      case 'log':
      case 'stderr':
        listOf(this.logs, event.connectionId).push(event);
        break;
      case 'notification':
        listOf(this.notifications, event.connectionId).push(event);
        break;
      case 'progress':
        this.progress.set(event.callId, event);
        break;
      case 'question':
        this.questions.set(`${event.connectionId}/${event.question.id}`, {
          connectionId: event.connectionId,
          question: event.question,
        });
        break;
      case 'check-progress':
        this.checkProgress.set(event.connectionId, event.line);
        break;
      case 'question-closed':
        this.questions.delete(`${event.connectionId}/${event.questionId}`);
        break;
    }
    this.changed();
  }

  /** The page's own calls, newest last (not an event: another tab's calls are its own). */
  readonly history = new Map<string, HistoryEntry[]>();

  record(connectionId: string, entry: HistoryEntry): void {
    const list = listOf(this.history, connectionId);
    list.push(entry);
    if (list.length > HISTORY_KEPT) list.splice(0, list.length - HISTORY_KEPT);
    this.changed();
  }

  setLive(live: boolean): void {
    this.live = live;
    this.changed();
  }

  /** Many events in a burst (a replay, a chatty server) cost one render per frame. */
  changed(): void {
    this.version++;
    if (this.#scheduled) return;
    this.#scheduled = true;
    requestAnimationFrame(() => {
      this.#scheduled = false;
      for (const listener of this.#listeners) listener();
    });
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

function listOf<T>(map: Map<string, T[]>, key: string): T[] {
  const list = map.get(key);
  if (list) return list;
  const created: T[] = [];
  map.set(key, created);
  return created;
}

export const store = new Store();

/** Re-renders the calling component whenever the store changes. */
export function useStore(): Store {
  const [, setVersion] = useState(store.version);
  useEffect(() => store.subscribe(() => setVersion(store.version)), []);
  return store;
}
