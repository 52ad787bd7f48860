/**
 * The History tab: the tool calls made from this page on a connection, newest first, each replayable
 * as it was or opened in its tool's form to edit the arguments first.
 */
import { useState } from 'preact/hooks';
import type { ConnectionSummary } from '../api-types.js';
import { type HistoryEntry, useStore } from './store.js';
import { CallOutcome, type CallOutcomeValue, callTool } from './tools.js';

export function HistoryTab({
  connection,
  onEdit,
  onOpen,
}: {
  connection: ConnectionSummary;
  onEdit: (tool: string, args: Record<string, unknown>) => void;
  onOpen: (uri: string) => void;
}) {
  const store = useStore();
  const entries = [...(store.history.get(connection.id) ?? [])].reverse();
  const [replayed, setReplayed] = useState<{ tool: string; outcome?: CallOutcomeValue } | undefined>();
  async function replay(entry: HistoryEntry) {
    setReplayed({ tool: entry.tool });
    setReplayed({ tool: entry.tool, outcome: await callTool(connection.id, entry.tool, entry.arguments) });
  }
  return (
    <section class="history" aria-label="History">
      {entries.length === 0 ? <p class="muted">No calls yet: call a tool and it is listed here.</p> : null}
      {entries.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Tool</th>
              <th scope="col">Arguments</th>
              <th scope="col">Outcome</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry, i) => (
              <tr key={`${entry.at}-${i}`}>
                <td class="num">{new Date(entry.at).toLocaleTimeString()}</td>
                <td>
                  <code>{entry.tool}</code>
                </td>
                <td>
                  <code class="args">{JSON.stringify(entry.arguments)}</code>
                </td>
                <td>
                  {outcomeWord(entry)} <small class="muted">{entry.ms} ms</small>
                </td>
                <td class="actions">
                  <button type="button" class="small" onClick={() => void replay(entry)}>
                    Replay<span class="sr-only"> {entry.tool}</span>
                  </button>{' '}
                  <button type="button" class="small" onClick={() => onEdit(entry.tool, entry.arguments)}>
                    Edit<span class="sr-only"> {entry.tool}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {replayed ? (
        replayed.outcome ? (
          <CallOutcome {...replayed.outcome} onOpen={onOpen} />
        ) : (
          <p class="muted" aria-live="polite">
            Replaying {replayed.tool}…
          </p>
        )
      ) : null}
    </section>
  );
}

function outcomeWord(entry: HistoryEntry): string {
  if (entry.error) return `error: ${entry.error.message}`;
  return entry.result?.isError ? 'tool error (isError)' : 'ok';
}
