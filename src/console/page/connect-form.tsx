/** Connecting to a server: a command to run over stdio, or an HTTP endpoint; and the protocol to speak. */
import { useState } from 'preact/hooks';
// The same quoting rules as the CLI's `switchboard tools "node server.js"`; its errors show here.
import { splitCommandLine } from '../../util/command-line.js';
import { connect } from './api.js';
import { ErrorView } from './content.js';

export function ConnectForm({ onConnected }: { onConnected: (id: string) => void }) {
  const [kind, setKind] = useState<'stdio' | 'http'>('stdio');
  const [target, setTarget] = useState('');
  const [protocol, setProtocol] = useState('auto');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <form
      class="connect"
      aria-label="New connection"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          const words = kind === 'stdio' ? splitCommandLine(target) : [];
          const summary = await connect(
            kind === 'http'
              ? { kind, url: target.trim(), protocol }
              : { kind, command: words[0] ?? '', args: words.slice(1), protocol },
          );
          if (summary.state === 'failed') setError(summary.error ?? 'The connection failed.');
          onConnected(summary.id);
        } catch (failure) {
          setError((failure as Error).message);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>New connection</h2>
      <div class="switch" role="radiogroup" aria-label="Transport">
        <label>
          <input
            type="radio"
            name="kind"
            value="stdio"
            checked={kind === 'stdio'}
            onChange={() => setKind('stdio')}
          />{' '}
          stdio command
        </label>
        <label>
          <input
            type="radio"
            name="kind"
            value="http"
            checked={kind === 'http'}
            onChange={() => setKind('http')}
          />{' '}
          HTTP URL
        </label>
      </div>
      <div class="field">
        <label for="connect-target">{kind === 'stdio' ? 'Command' : 'Endpoint URL'}</label>
        <input
          id="connect-target"
          required
          value={target}
          placeholder={kind === 'stdio' ? 'node server.js --stdio' : 'http://127.0.0.1:3000/mcp'}
          onInput={(e) => setTarget(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="connect-protocol">Protocol</label>
        <select id="connect-protocol" value={protocol} onChange={(e) => setProtocol(e.currentTarget.value)}>
          <option value="auto">auto (2026-07-28, else legacy)</option>
          <option value="legacy">legacy (initialize)</option>
          {['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'].map((r) => (
            <option key={r} value={r}>
              {r} only
            </option>
          ))}
        </select>
      </div>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Connecting…' : 'Connect'}
      </button>
      {error ? <ErrorView message={error} /> : null}
    </form>
  );
}
