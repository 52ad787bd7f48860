/** The console's page: connections on the side, the chosen connection's tabs in the middle. */
import { useEffect, useState } from 'preact/hooks';
import type { ConnectionSummary } from '../api-types.js';
import { disconnect, run } from './api.js';
import { CheckTab } from './check.js';
import { ConnectForm } from './connect-form.js';
import { ErrorView, JsonView } from './content.js';
import { FleetPage, hasFleet } from './fleet.js';
import { GatewayServers } from './gateway.js';
import { HistoryTab } from './history.js';
import { LogsTab } from './logs.js';
import { PromptsTab } from './prompts.js';
import { Questions } from './questions.js';
import { ResourcesTab } from './resources.js';
import { SkillsTab } from './skills.js';
import { useStore } from './store.js';
import { ToolsTab } from './tools.js';
import { TraceTab } from './trace.js';

const TABS = ['tools', 'resources', 'prompts', 'skills', 'history', 'trace', 'logs', 'check'] as const;
type Tab = (typeof TABS)[number];

/**
 * Deep links: `#/<connection>/<tab>` and `#/<connection>/<tab>/<item>`, the item being a tool or
 * prompt name or a resource URI (percent-encoded).
 */
function readHash(): { id?: string; tab: Tab; item?: string } {
  const [, id, tab, item] = location.hash.split('/');
  return {
    ...(id ? { id: decodeURIComponent(id) } : {}),
    tab: TABS.includes(tab as Tab) ? (tab as Tab) : 'tools',
    ...(item ? { item: decodeURIComponent(item) } : {}),
  };
}

export function App() {
  const store = useStore();
  const [route, setRoute] = useState(readHash);
  useEffect(() => {
    const onHash = () => setRoute(readHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const go = (id: string | undefined, tab: Tab = route.tab, item?: string) => {
    location.hash = id
      ? `/${encodeURIComponent(id)}/${tab}${item === undefined ? '' : `/${encodeURIComponent(item)}`}`
      : '';
  };
  const connections = [...store.connections.values()];
  // A config's fleet is there from the start; a gateway's once the console is connected to one.
  const gateways = connections.filter((c) => c.state === 'open' && c.gateway !== undefined).length;
  const [fleet, setFleet] = useState(false);
  useEffect(() => {
    void hasFleet().then(setFleet);
  }, [gateways]);
  const onFleet = location.hash.startsWith('#/fleet');
  const current =
    (route.id ? store.connections.get(route.id) : undefined) ?? connections.find((c) => c.state === 'open');
  return (
    <>
      <header class="top">
        <h1>Switchboard console</h1>
        <span class={`live ${store.live ? 'on' : 'off'}`} role="status">
          {store.live ? 'live' : 'reconnecting…'}
        </span>
        <ThemeToggle />
      </header>
      <div class="layout">
        <aside class="side" aria-label="Connections">
          {fleet ? (
            <a class="item fleet-link" href="#/fleet" aria-current={onFleet ? 'page' : undefined}>
              Fleet
            </a>
          ) : null}
          <h2>Connections</h2>
          <ul class="connections">
            {connections.map((c) => (
              <li key={c.id}>
                <button
                  type="button"
                  class="item"
                  aria-current={c.id === current?.id}
                  onClick={() => go(c.id)}
                >
                  <span class={`state ${c.state}`} aria-hidden="true" />
                  <span>
                    <strong>{c.serverInfo?.title ?? c.serverInfo?.name ?? c.label}</strong>
                    <small class="muted">
                      {c.state} · {c.transport ?? c.target.kind}
                    </small>
                  </span>
                </button>
              </li>
            ))}
          </ul>
          <ConnectForm onConnected={(id) => go(id)} />
        </aside>
        <main class="main">
          {onFleet ? (
            <FleetPage />
          ) : current ? (
            <ConnectionView
              key={current.id}
              connection={current}
              tab={route.tab}
              item={route.item}
              onTab={(tab, item) => go(current.id, tab, item)}
            />
          ) : (
            <p class="muted">Connect to a server to begin.</p>
          )}
        </main>
      </div>
      <Questions />
    </>
  );
}

function ConnectionView({
  connection,
  tab,
  item,
  onTab,
}: {
  connection: ConnectionSummary;
  tab: Tab;
  item: string | undefined;
  onTab: (tab: Tab, item?: string) => void;
}) {
  // A resource link opened from a result or a prompt reads it in the Resources tab.
  const open = (uri: string) => onTab('resources', uri);
  // Arguments to put in a tool's form (a call edited from the history).
  const [prefill, setPrefill] = useState<{ tool: string; args: Record<string, unknown> } | undefined>();
  const info = connection.serverInfo;
  return (
    <>
      <section class="server" aria-label="Server">
        <div class="server-head">
          <h2>
            {info?.title ?? info?.name ?? connection.label}{' '}
            {info ? <span class="muted">{info.version}</span> : null}
          </h2>
          <button type="button" class="small" onClick={() => void disconnect(connection.id)}>
            Close connection
          </button>
        </div>
        <p class="facts">
          <span class="badge">{connection.state}</span>
          {connection.era ? <span class="badge">{connection.era} era</span> : null}
          {connection.revision ? <span class="badge">protocol {connection.revision}</span> : null}
          {connection.transport ? <span class="badge">{connection.transport}</span> : null}
          {connection.negotiationMs !== undefined ? (
            <span class="badge">negotiated in {connection.negotiationMs} ms</span>
          ) : null}
          <code class="muted">{connection.label}</code>
        </p>
        {connection.error ? <ErrorView message={connection.error} /> : null}
        {connection.instructions ? <p class="instructions">{connection.instructions}</p> : null}
        {connection.gateway ? <GatewayServers connection={connection} gateway={connection.gateway} /> : null}
        <details>
          <summary>Capabilities and roots</summary>
          <JsonView value={connection.capabilities ?? {}} label="capabilities" />
          <RootsEditor connection={connection} />
        </details>
      </section>
      {connection.state === 'open' ? (
        <>
          <div class="tabs" role="tablist" aria-label="Views">
            {TABS.map((t) => (
              <button
                key={t}
                type="button"
                role="tab"
                id={`tab-${t}`}
                aria-selected={t === tab}
                aria-controls="tab-panel"
                tabIndex={t === tab ? 0 : -1}
                onClick={() => onTab(t)}
                onKeyDown={(e) => {
                  const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
                  if (!step) return;
                  const next = TABS[(TABS.indexOf(t) + step + TABS.length) % TABS.length]!;
                  onTab(next);
                  document.getElementById(`tab-${next}`)?.focus();
                }}
              >
                {t[0]!.toUpperCase() + t.slice(1)}
              </button>
            ))}
          </div>
          <div id="tab-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
            {tab === 'tools' ? (
              <ToolsTab
                connection={connection}
                selected={item}
                onSelect={(name) => onTab('tools', name)}
                prefill={prefill?.tool === item ? prefill?.args : undefined}
                onOpen={open}
              />
            ) : null}
            {tab === 'resources' ? (
              <ResourcesTab
                connection={connection}
                opened={item}
                onOpened={(uri) => onTab('resources', uri)}
              />
            ) : null}
            {tab === 'prompts' ? (
              <PromptsTab
                connection={connection}
                selected={item}
                onSelect={(name) => onTab('prompts', name)}
                onOpen={open}
              />
            ) : null}
            {tab === 'skills' ? (
              <SkillsTab connection={connection} selected={item} onSelect={(uri) => onTab('skills', uri)} />
            ) : null}
            {tab === 'history' ? (
              <HistoryTab
                connection={connection}
                onEdit={(tool, args) => {
                  setPrefill({ tool, args });
                  onTab('tools', tool);
                }}
                onOpen={open}
              />
            ) : null}
            {tab === 'trace' ? <TraceTab connectionId={connection.id} /> : null}
            {tab === 'logs' ? <LogsTab connection={connection} /> : null}
            {tab === 'check' ? <CheckTab connection={connection} /> : null}
          </div>
        </>
      ) : (
        <TraceTab connectionId={connection.id} />
      )}
    </>
  );
}

function RootsEditor({ connection }: { connection: ConnectionSummary }) {
  const [text, setText] = useState(connection.roots.map((r) => r.uri).join('\n'));
  return (
    <form
      class="roots"
      onSubmit={(e) => {
        e.preventDefault();
        const roots = text
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean)
          .map((uri) => ({ uri }));
        void run(connection.id, 'roots', { roots });
      }}
    >
      <div class="field">
        <label for="roots">Roots offered to the server (one file:// URI a line)</label>
        <textarea
          id="roots"
          class="mono"
          rows={2}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </div>
      <button type="submit" class="small">
        Set roots
      </button>
    </form>
  );
}

function ThemeToggle() {
  const [theme, setTheme] = useState(() => localStorage.getItem('switchboard-console-theme') ?? 'auto');
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('switchboard-console-theme', theme);
  }, [theme]);
  return (
    <label class="theme">
      Theme{' '}
      <select value={theme} onChange={(e) => setTheme(e.currentTarget.value)}>
        <option value="auto">system</option>
        <option value="light">light</option>
        <option value="dark">dark</option>
      </select>
    </label>
  );
}
