/**
 * The command center (`switchboard console --config FILE`, or connected to a `switchboard gateway`;
 * `#/fleet`): every server of the config (or the gateway and each server behind it), its health,
 * last check score and score history, its pinned tools and those changed since they were pinned
 * (the diff, and an approve action that asks first), and a check run from the page. A tool a
 * gateway holds back is approved on the gateway, when its admin endpoint lets the console in.
 */
import { useEffect, useState } from 'preact/hooks';
import { TOKEN_HEADER } from '../api-types.js';
import type { FleetServerView, FleetView } from '../fleet-types.js';
import { token } from './api.js';

async function fleetRequest(method: string, path: string, body?: unknown): Promise<FleetView> {
  const response = await fetch(`/api/fleet${path}`, {
    method,
    headers: { [TOKEN_HEADER]: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error((await response.text()).trim() || `HTTP ${response.status}`);
  return (await response.json()) as FleetView;
}

/** Whether this console has a fleet (it answers 404 otherwise). */
export async function hasFleet(): Promise<boolean> {
  try {
    await fleetRequest('GET', '');
    return true;
  } catch {
    return false;
  }
}

export function FleetPage() {
  const [view, setView] = useState<FleetView | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const act = async (label: string, action: () => Promise<FleetView>) => {
    setBusy(label);
    setError(undefined);
    try {
      setView(await action());
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(undefined);
    }
  };
  useEffect(() => {
    void act('load', () => fleetRequest('GET', ''));
  }, []);
  if (!view) return <p class="muted">{error ?? 'Loading the fleet…'}</p>;
  return (
    <section class="fleet" aria-label="Fleet">
      <div class="list-head">
        <h2>Fleet</h2>
        <button
          type="button"
          disabled={busy !== undefined}
          onClick={() => void act('all', () => fleetRequest('POST', '/check', {}))}
        >
          {view.gateway
            ? busy === 'all'
              ? 'Checking the gateway…'
              : 'Check the gateway'
            : busy === 'all'
              ? 'Checking every server…'
              : 'Check every server'}
        </button>
      </div>
      <p class="muted">
        {view.gateway ? `switchboard gateway at ${view.config}` : view.config}
        {view.history ? ` · history ${view.history}` : ''}
      </p>
      {view.admin ? (
        <p class="muted">
          Held tools are approved and servers checked with the gateway's admin endpoint, which is not
          available: {view.admin}
        </p>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <table class="fleet-table">
        <thead>
          <tr>
            <th scope="col">server</th>
            <th scope="col">health</th>
            <th scope="col">score</th>
            <th scope="col">history</th>
            <th scope="col">tools</th>
            <th scope="col" />
          </tr>
        </thead>
        <tbody>
          {view.servers.map((s) => (
            <tr key={s.name}>
              <th scope="row">
                {s.name}
                <br />
                <small class="muted">{s.transport}</small>
              </th>
              <td>
                <span class={`badge health ${s.health}`}>{s.health}</span>
                {s.error ? <small class="muted"> {s.error.split('\n')[0]}</small> : null}
              </td>
              <td>
                {s.last ? (
                  <>
                    <strong>{s.last.score}</strong>
                    <small class="muted">
                      {' '}
                      {s.last.mustFailures} MUST failure{s.last.mustFailures === 1 ? '' : 's'}
                    </small>
                    {s.last.changes.length > 0 ? (
                      <small class="changes">{s.last.changes.join('; ')}</small>
                    ) : null}
                  </>
                ) : (
                  <span class="muted">not checked</span>
                )}
              </td>
              <td>
                <Sparkline server={s} />
              </td>
              <td>
                <span class="muted">{s.pinned.length} pinned</span>
                {s.changed.length > 0 ? <span class="badge failed"> {s.changed.length} changed</span> : null}
              </td>
              <td>
                {s.checkable === false ? (
                  <small class="muted">checked with the gateway</small>
                ) : (
                  <button
                    type="button"
                    class="small"
                    disabled={busy !== undefined}
                    onClick={() => void act(s.name, () => fleetRequest('POST', '/check', { server: s.name }))}
                  >
                    {busy === s.name ? 'Checking…' : 'Check'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {view.servers.flatMap((s) =>
        s.changed.map((c) => (
          <article
            class="tool-change"
            key={`${s.name}/${c.tool}`}
            aria-label={`${s.name}: ${c.tool} ${c.change}`}
          >
            <h3>
              {s.name}: tool <code>{c.tool}</code>{' '}
              {c.change === 'changed'
                ? 'changed since it was pinned'
                : c.change === 'added'
                  ? 'is new'
                  : c.change === 'held'
                    ? 'is held by the gateway until approved'
                    : 'is gone'}
            </h3>
            {c.note ? <p class="muted">{c.note}</p> : null}
            {c.change === 'held' && !c.approvable ? (
              <p class="muted">{c.diff}</p>
            ) : (
              <>
                <pre class="diff">
                  {c.diff.split('\n').map((line, i) => (
                    <span
                      key={i}
                      class={
                        line.startsWith('+') && !line.startsWith('+++')
                          ? 'add'
                          : line.startsWith('-') && !line.startsWith('---')
                            ? 'del'
                            : ''
                      }
                    >
                      {line}
                      {'\n'}
                    </span>
                  ))}
                </pre>
                <button
                  type="button"
                  class="small"
                  disabled={busy !== undefined}
                  onClick={() => {
                    // Approving trusts the new definition for every client of this fleet: ask first.
                    if (
                      confirm(
                        c.change === 'held'
                          ? `Approve the new definition of ${c.tool} on the gateway? Every client of it can then call the tool.`
                          : `Approve the ${c.change === 'removed' ? 'removal' : 'definition'} of ${c.tool} on ${s.name}?`,
                      )
                    )
                      void act(`approve ${s.name}/${c.tool}`, () =>
                        fleetRequest('POST', '/approve', { server: s.name, tool: c.tool }),
                      );
                  }}
                >
                  Approve
                </button>
              </>
            )}
          </article>
        )),
      )}
    </section>
  );
}

/** The scores of the runs as a small line (0-100), the last point labelled. */
function Sparkline({ server }: { server: FleetServerView }) {
  const points = server.history.filter((h): h is { at: string; score: number } => h.score !== null);
  if (points.length === 0) return <span class="muted">—</span>;
  const w = 120;
  const h = 32;
  const x = (i: number) => (points.length === 1 ? w / 2 : (i * (w - 6)) / (points.length - 1) + 3);
  const y = (score: number) => 3 + ((100 - score) * (h - 6)) / 100;
  const label = `${server.name}: scores ${points.map((p) => p.score).join(', ')}`;
  return (
    <svg class="sparkline" width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img" aria-label={label}>
      <title>{label}</title>
      <polyline
        fill="none"
        stroke="currentColor"
        stroke-width="2"
        points={points.map((p, i) => `${x(i)},${y(p.score)}`).join(' ')}
      />
      {points.map((p, i) => (
        <circle key={p.at} cx={x(i)} cy={y(p.score)} r="2.5" fill="currentColor" />
      ))}
    </svg>
  );
}
