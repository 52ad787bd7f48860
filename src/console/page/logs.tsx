/** The Logs tab: the server's `notifications/message` (level chosen here) and, for stdio, its stderr. */

import { LOGGING_LEVELS, type LoggingLevel } from '../../protocol/types.js';
import type { ConnectionSummary } from '../api-types.js';
import { run } from './api.js';
import { useStore } from './store.js';

export function LogsTab({ connection }: { connection: ConnectionSummary }) {
  const store = useStore();
  const entries = (store.logs.get(connection.id) ?? []).slice(-1000);
  return (
    <section class="logs" aria-label="Logs">
      <div class="toolbar">
        <label>
          Level{' '}
          <select
            value={connection.logLevel}
            onChange={(e) =>
              void run(connection.id, 'log-level', { level: e.currentTarget.value as LoggingLevel })
            }
          >
            {LOGGING_LEVELS.map((level) => (
              <option key={level} value={level}>
                {level} and above
              </option>
            ))}
          </select>
        </label>
      </div>
      {entries.length === 0 ? <p class="muted">No log messages yet.</p> : null}
      <ol class="log-lines">
        {entries.map((e) => (
          <li key={e.seq} class={e.kind === 'log' ? `level-${e.level}` : 'stderr'}>
            <time>{new Date(e.at).toLocaleTimeString()}</time>{' '}
            <span class="badge">{e.kind === 'log' ? e.level : 'stderr'}</span>{' '}
            {e.kind === 'log' && e.logger ? <span class="muted">{e.logger}: </span> : null}
            <code>
              {e.kind === 'log' ? (typeof e.data === 'string' ? e.data : JSON.stringify(e.data)) : e.text}
            </code>
          </li>
        ))}
      </ol>
    </section>
  );
}
