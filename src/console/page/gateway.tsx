/**
 * A `switchboard gateway`'s servers, one by one: each upstream's health (from the gateway's
 * `/readyz`), and which upstream each tool, prompt and resource comes from (the gateway namespaces
 * names as `<server><separator><name>` and URIs as `gateway://<server>/<uri>`).
 */
import { parseExposedUri } from '../../gateway/names.js';
import type { ConnectionSummary, GatewayView } from '../api-types.js';
import { run } from './api.js';
import { ErrorView } from './content.js';
import { useOperation } from './use-operation.js';

export { upstreamOfName } from '../upstream-names.js';

/** The upstream a resource URI or template belongs to. */
export function upstreamOfUri(gateway: GatewayView | undefined, uri: string): string | undefined {
  return gateway ? parseExposedUri(uri)?.namespace : undefined;
}

const HEALTHY = new Set(['up', 'idle']);

export function GatewayServers({
  connection,
  gateway,
}: {
  connection: ConnectionSummary;
  gateway: GatewayView;
}) {
  const { busy, error, start } = useOperation();
  return (
    <section class="upstreams" aria-label="Servers behind the gateway">
      <div class="list-head">
        <h3>Servers behind the gateway</h3>
        {gateway.ready !== undefined ? (
          <span class={`badge ${gateway.ready ? 'ok' : 'failed'}`}>
            {gateway.ready ? 'ready' : 'not ready'}
          </span>
        ) : null}
        <button
          type="button"
          class="small"
          disabled={busy}
          onClick={() => void start(() => run(connection.id, 'gateway', {}))}
        >
          Refresh health
        </button>
      </div>
      {gateway.error ? <ErrorView message={gateway.error} /> : null}
      {error ? <ErrorView message={error} /> : null}
      {gateway.upstreams.length > 0 ? (
        <div class="scroll">
          <table>
            <caption class="sr-only">
              Each server's state as the gateway reported it at{' '}
              {new Date(gateway.checkedAt).toLocaleTimeString()}
            </caption>
            <thead>
              <tr>
                <th scope="col">Server</th>
                <th scope="col">State</th>
                <th scope="col">Transport</th>
                <th scope="col">Protocol</th>
                <th scope="col">Restarts</th>
                <th scope="col">Sessions</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {gateway.upstreams.map((u) => (
                <tr key={u.name}>
                  <th scope="row">{u.name}</th>
                  <td>
                    <span class={`badge ${HEALTHY.has(u.state) ? 'ok' : 'failed'}`}>{u.state}</span>
                  </td>
                  <td>{u.transport ?? ''}</td>
                  <td>{u.revision ?? ''}</td>
                  <td>{u.restarts ?? ''}</td>
                  <td>{u.sessions ?? ''}</td>
                  <td>{u.lastError ? <pre class="text">{u.lastError}</pre> : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {gateway.heldTools && gateway.heldTools.length > 0 ? (
        <p class="muted">Held until approved (changed since pinned): {gateway.heldTools.join(', ')}</p>
      ) : null}
      <p class="muted">
        Read from <code>{gateway.healthUrl}</code> at {new Date(gateway.checkedAt).toLocaleTimeString()}.
      </p>
    </section>
  );
}
