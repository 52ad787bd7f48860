/** The Trace tab: every JSON-RPC message both ways, with timing, filters and search; copyable as JSON. */
import { useState } from 'preact/hooks';
import { CopyButton, JsonView } from './content.js';
import { type TraceEntry, useStore } from './store.js';

/** Rendering is bounded: the newest rows that match the filter. */
const SHOWN = 500;

function describe(message: unknown): { kind: string; summary: string } {
  if (Array.isArray(message)) return { kind: 'batch', summary: `${message.length} messages` };
  const m = (message ?? {}) as Record<string, unknown>;
  if (typeof m.method === 'string')
    return { kind: 'id' in m ? 'request' : 'notification', summary: m.method };
  if ('error' in m)
    return {
      kind: 'error',
      summary: `#${String(m.id)} ${String((m.error as { message?: unknown })?.message ?? '')}`,
    };
  return { kind: 'result', summary: `#${String(m.id)}` };
}

export function TraceTab({ connectionId }: { connectionId: string }) {
  const store = useStore();
  const [search, setSearch] = useState('');
  const [direction, setDirection] = useState<'' | 'in' | 'out'>('');
  const [open, setOpen] = useState<number | undefined>(undefined);
  const all = store.traces.get(connectionId) ?? [];
  const needle = search.trim().toLowerCase();
  const matching = all.filter(
    (e) =>
      (direction === '' || e.direction === direction) &&
      (needle === '' || JSON.stringify(e.message).toLowerCase().includes(needle)),
  );
  const shown = matching.slice(-SHOWN);
  const start = all[0]?.at ?? 0;
  return (
    <section class="trace" aria-label="Trace">
      <div class="toolbar">
        <label>
          Search{' '}
          <input
            type="search"
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
            placeholder="method, id, text…"
          />
        </label>
        <label>
          Direction{' '}
          <select
            value={direction}
            onChange={(e) => setDirection(e.currentTarget.value as '' | 'in' | 'out')}
          >
            <option value="">both</option>
            <option value="out">sent</option>
            <option value="in">received</option>
          </select>
        </label>
        <span class="muted" aria-live="polite">
          {matching.length} of {all.length} messages
        </span>
        <CopyButton text={JSON.stringify(matching.map(entryJson), null, 2)} label="Copy shown as JSON" />
      </div>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">+ms</th>
              <th scope="col">Dir</th>
              <th scope="col">Kind</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((entry) => {
              const { kind, summary } = describe(entry.message);
              const expanded = open === entry.seq;
              return [
                <tr key={entry.seq} class={`trace-row ${entry.direction} ${kind}`}>
                  <td class="num">{entry.at - start}</td>
                  <td>
                    <span class="sr-only">{entry.direction === 'out' ? 'sent' : 'received'}</span>
                    <span aria-hidden="true">{entry.direction === 'out' ? '→' : '←'}</span>
                  </td>
                  <td>{kind}</td>
                  <td>
                    <button
                      type="button"
                      class="link-button"
                      aria-expanded={expanded}
                      onClick={() => setOpen(expanded ? undefined : entry.seq)}
                    >
                      {summary}
                    </button>
                  </td>
                </tr>,
                expanded ? (
                  <tr key={`${entry.seq}-json`}>
                    <td colSpan={4}>
                      <JsonView value={entry.message} label="message" />
                    </td>
                  </tr>
                ) : null,
              ];
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

const entryJson = (e: TraceEntry) => ({
  at: new Date(e.at).toISOString(),
  direction: e.direction,
  message: e.message,
});
