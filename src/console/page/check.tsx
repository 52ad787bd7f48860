/**
 * The Check tab: `switchboard check` on the connection's server, run by the console's Node process
 * (connections of its own: a stdio server is started again), and its report read here: the score,
 * what failed or warned with the evidence, each revision the server does or does not speak.
 */
import { useState } from 'preact/hooks';
import { REVISIONS } from '../../protocol/revisions.js';
import type { CheckResult, ConnectionSummary } from '../api-types.js';
import { run } from './api.js';
import { ErrorView, JsonView } from './content.js';
import { useStore } from './store.js';

type CheckEntry = CheckResult['checks'][number];

export function CheckTab({ connection }: { connection: ConnectionSummary }) {
  const store = useStore();
  const [revision, setRevision] = useState(connection.revision ?? '');
  const [callTools, setCallTools] = useState(false);
  const [running, setRunning] = useState(false);
  const [report, setReport] = useState<CheckResult | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <section class="check" aria-label="Check">
      <form
        class="toolbar"
        aria-label="Run a check"
        onSubmit={async (e) => {
          e.preventDefault();
          setRunning(true);
          setError(undefined);
          const answer = await run(connection.id, 'check', {
            ...(revision ? { revisions: [revision] } : {}),
            callTools,
          });
          setRunning(false);
          if (answer.ok) setReport(answer.result);
          else setError(answer.error.message);
        }}
      >
        <label>
          Revisions{' '}
          <select value={revision} onChange={(e) => setRevision(e.currentTarget.value)}>
            <option value="">every revision</option>
            {REVISIONS.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input
            type="checkbox"
            checked={callTools}
            onChange={(e) => setCallTools(e.currentTarget.checked)}
          />{' '}
          call every tool, not only read-only ones
        </label>
        <button type="submit" disabled={running}>
          {running ? 'Checking…' : 'Run check'}
        </button>
        {running ? (
          <span class="muted" aria-live="polite">
            {store.checkProgress.get(connection.id) ?? 'starting…'}
          </span>
        ) : null}
      </form>
      {error ? <ErrorView message={error} /> : null}
      {report ? <Report report={report} /> : null}
    </section>
  );
}

function Report({ report }: { report: CheckResult }) {
  const { summary } = report;
  const problems = report.checks.filter((c) => c.status === 'failed' || c.status === 'warning');
  problems.sort((a, b) => (a.status === b.status ? 0 : a.status === 'failed' ? -1 : 1));
  const rest = report.checks.filter((c) => c.status !== 'failed' && c.status !== 'warning');
  return (
    <section class="report" aria-label="Check report">
      <h3>
        <span class="score">{summary.score}/100</span>{' '}
        {report.server ? `${report.server.name} ${report.server.version}` : report.target}
      </h3>
      <p class="facts">
        <span class="badge ok">{summary.passed} passed</span>
        <span class={`badge ${summary.failed ? 'failed' : ''}`}>{summary.failed} failed</span>
        <span class="badge">{summary.warnings} warnings</span>
        <span class="badge">{summary.skipped} skipped</span>
        <span class="muted">in {(report.durationMs / 1000).toFixed(1)} s</span>
      </p>
      <ul class="revisions">
        {report.revisions.map((r) => (
          <li key={r.revision}>
            <code>{r.revision}</code> {r.supported ? 'spoken' : 'not spoken'}
            {r.note ? <span class="muted"> · {r.note}</span> : null}
          </li>
        ))}
      </ul>
      <h4>{problems.length === 0 ? 'No failures or warnings' : 'Failures and warnings'}</h4>
      <CheckTable checks={problems} />
      <details>
        <summary>Passed and skipped ({rest.length})</summary>
        <CheckTable checks={rest} />
      </details>
      <details>
        <summary>The report as JSON</summary>
        <JsonView value={report} label="report" />
      </details>
    </section>
  );
}

function CheckTable({ checks }: { checks: readonly CheckEntry[] }) {
  if (checks.length === 0) return null;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Status</th>
          <th scope="col">Revision</th>
          <th scope="col">Requirement</th>
          <th scope="col">What was seen</th>
        </tr>
      </thead>
      <tbody>
        {checks.map((c) => (
          <tr key={`${c.revision}/${c.id}`} class={`check-row ${c.status}`}>
            <td>{c.status}</td>
            <td>
              <code>{c.revision}</code>
            </td>
            <td>
              {/* A link out is the person's choice; the console itself loads nothing from elsewhere. */}
              <a href={c.section} target="_blank" rel="noreferrer noopener">
                {c.id}
              </a>{' '}
              <small class="muted">{c.level}</small>
            </td>
            <td>
              {c.message}
              {c.evidence?.length ? (
                <details>
                  <summary>evidence</summary>
                  <pre class="mono">{c.evidence.join('\n')}</pre>
                </details>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
