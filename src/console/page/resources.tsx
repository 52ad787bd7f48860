/** The Resources tab: resources and templates; a template's fields complete as the person types. */
import { useEffect, useId, useState } from 'preact/hooks';
import type { ReadResourceResult, ResourceTemplate } from '../../protocol/types.js';
import type { ConnectionSummary } from '../api-types.js';
import { run } from './api.js';
import { ErrorView, JsonView, ResourceContentsView } from './content.js';
import { upstreamOfUri } from './gateway.js';
import { ItemList } from './item-list.js';
import { useStore } from './store.js';
import { expandTemplate, templateVariables } from './uri-template.js';
import { useList } from './use-list.js';
import { useOperation } from './use-operation.js';

const UPDATED = 'notifications/resources/updated';
/** Updates listed in the panel; older ones stay in the trace. */
const UPDATES_SHOWN = 20;

export function ResourcesTab({
  connection,
  opened,
  onOpened,
}: {
  connection: ConnectionSummary;
  /** The URI read (the deep link's item: a resource chosen here, or a link opened elsewhere). */
  opened: string | undefined;
  onOpened: (uri: string) => void;
}) {
  const list = useList(connection.id, 'resources', (r) => [r]);
  const [template, setTemplate] = useState<ResourceTemplate | undefined>(undefined);
  const [reading, setReading] = useState<
    { uri: string; result?: ReadResourceResult; error?: string } | undefined
  >(undefined);
  const listed = list.items?.[0];
  const store = useStore();
  const updates = (store.notifications.get(connection.id) ?? []).filter((n) => n.method === UPDATED);
  const uriOf = (n: (typeof updates)[number]) => String((n.params as { uri?: unknown }).uri);
  // A followed resource that is open reads itself again when the server says it changed.
  const openedUpdates = updates.filter((n) => uriOf(n) === opened).length;

  async function read(uri: string, again = false) {
    if (!again) setReading({ uri });
    const answer = await run(connection.id, 'read', { uri });
    setReading(answer.ok ? { uri, result: answer.result } : { uri, error: answer.error.message });
  }
  useEffect(() => {
    if (opened) void read(opened);
  }, [opened]);
  useEffect(() => {
    if (opened && openedUpdates > 0) void read(opened, true);
  }, [openedUpdates]);

  return (
    <div class="split">
      <nav class="list" aria-label="Resources">
        <ItemList
          heading="Resources"
          items={listed?.resources.map((r) => ({
            ...r,
            key: r.uri,
            title: r.title ?? r.name,
            subtitle: r.uri,
            group: upstreamOfUri(connection.gateway, r.uri),
          }))}
          current={template ? undefined : reading?.uri}
          onSelect={(uri) => {
            setTemplate(undefined);
            // Choosing the resource already in the link reads it again.
            if (uri === opened) void read(uri);
            else onOpened(uri);
          }}
          onRefresh={list.reload}
          error={list.error}
        />
        <ItemList
          heading="Templates"
          items={listed?.resourceTemplates.map((t) => ({
            ...t,
            key: t.uriTemplate,
            title: t.title ?? t.name,
            subtitle: t.uriTemplate,
            group: upstreamOfUri(connection.gateway, t.uriTemplate),
          }))}
          current={template?.uriTemplate}
          onSelect={(key) => {
            setTemplate(listed?.resourceTemplates.find((t) => t.uriTemplate === key));
            setReading(undefined);
          }}
        />
      </nav>
      <section class="detail" aria-label="Resource">
        {template ? (
          <TemplateForm
            key={template.uriTemplate}
            connection={connection}
            template={template}
            onRead={read}
          />
        ) : null}
        {reading ? (
          <div class="result" aria-live="polite">
            <h3>
              Read <code>{reading.uri}</code>
            </h3>
            <WatchButton connection={connection} uri={reading.uri} />
            {reading.error ? <ErrorView message={reading.error} /> : null}
            {!reading.result && !reading.error ? <p class="muted">Reading…</p> : null}
            {reading.result?.contents.map((c) => (
              <ResourceContentsView key={c.uri} contents={c} />
            ))}
            {reading.result ? (
              <details>
                <summary>Raw result</summary>
                <JsonView value={reading.result} label="result" />
              </details>
            ) : null}
          </div>
        ) : null}
        {!template && !reading ? <p class="muted">Choose a resource or a template.</p> : null}
        {connection.subscriptions.length > 0 || updates.length > 0 ? (
          <section class="updates" aria-label="Resource updates">
            <h3>Updates</h3>
            <p class="muted">
              Following:{' '}
              {connection.subscriptions.length > 0
                ? connection.subscriptions.map((uri) => <code key={uri}>{uri} </code>)
                : 'nothing'}
            </p>
            <ol aria-live="polite" class="plain">
              {updates
                .slice(-UPDATES_SHOWN)
                .reverse()
                .map((n) => (
                  <li key={n.seq}>
                    <time dateTime={new Date(n.at).toISOString()}>{new Date(n.at).toLocaleTimeString()}</time>{' '}
                    <code>{uriOf(n)}</code> changed{' '}
                    <button type="button" class="small" onClick={() => onOpened(uriOf(n))}>
                      Read {uriOf(n)}
                    </button>
                  </li>
                ))}
            </ol>
          </section>
        ) : null}
      </section>
    </div>
  );
}

/** Follows a resource's changes (or stops); the server's refusal shows beside it. */
function WatchButton({ connection, uri }: { connection: ConnectionSummary; uri: string }) {
  const { busy, error, start } = useOperation();
  const following = connection.subscriptions.includes(uri);
  if (!connection.capabilities?.resources?.subscribe) return null;
  return (
    <p>
      <button
        type="button"
        class="small"
        disabled={busy}
        onClick={() => void start(() => run(connection.id, following ? 'unsubscribe' : 'subscribe', { uri }))}
      >
        {following ? 'Stop following' : 'Follow updates'}
      </button>{' '}
      {following ? <span class="badge ok">following</span> : null}
      {error ? <ErrorView message={error} /> : null}
    </p>
  );
}

function TemplateForm({
  connection,
  template,
  onRead,
}: {
  connection: ConnectionSummary;
  template: ResourceTemplate;
  onRead: (uri: string) => void;
}) {
  const variables = templateVariables(template.uriTemplate);
  const [values, setValues] = useState<Record<string, string>>({});
  const uri = expandTemplate(template.uriTemplate, values);
  return (
    <form
      class="template"
      aria-label={`Read ${template.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        onRead(uri);
      }}
    >
      <h2>
        {template.title ?? template.name} <code class="muted">{template.uriTemplate}</code>
      </h2>
      {template.description ? <p>{template.description}</p> : null}
      <div class="fields">
        {variables.map((name) => (
          <CompletedInput
            key={name}
            connection={connection}
            name={name}
            value={values[name] ?? ''}
            reference={{ type: 'ref/resource', uri: template.uriTemplate }}
            context={values}
            onChange={(value) => setValues((old) => ({ ...old, [name]: value }))}
          />
        ))}
      </div>
      <p>
        URI: <code data-testid="expanded-uri">{uri}</code>
      </p>
      <button type="submit" class="primary">
        Read
      </button>
    </form>
  );
}

/** A text field whose suggestions come from the server's `completion/complete`, as the person types. */
export function CompletedInput({
  connection,
  name,
  label,
  required,
  description,
  value,
  reference,
  context,
  onChange,
}: {
  connection: ConnectionSummary;
  name: string;
  label?: string;
  required?: boolean;
  description?: string;
  value: string;
  reference: { type: 'ref/resource'; uri: string } | { type: 'ref/prompt'; name: string };
  context: Record<string, string>;
  onChange: (value: string) => void;
}) {
  const id = useId();
  const [suggestions, setSuggestions] = useState<string[]>([]);
  const completes = connection.capabilities?.completions !== undefined;
  useEffect(() => {
    if (!completes) return;
    let current = true;
    const others = Object.fromEntries(Object.entries(context).filter(([k]) => k !== name));
    void run(connection.id, 'complete', {
      ref: reference,
      argument: { name, value },
      ...(Object.keys(others).length > 0 ? { context: { arguments: others } } : {}),
    }).then((answer) => {
      if (current && answer.ok) setSuggestions(answer.result.completion.values);
    });
    return () => {
      current = false;
    };
  }, [value, completes]);
  // A value already chosen needs no button to choose it again.
  const chips = suggestions.filter((s) => s !== value).slice(0, 8);
  return (
    <div class="field">
      <label for={id}>
        {label ?? name}
        {required ? <span class="required"> *</span> : null}
      </label>
      <input
        id={id}
        name={name}
        list={`${id}-list`}
        value={value}
        aria-required={required ?? false}
        autocomplete="off"
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      <datalist id={`${id}-list`}>
        {suggestions.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      {chips.length > 0 ? (
        <fieldset class="suggestions">
          <legend class="sr-only">Suggestions for {label ?? name}</legend>
          {chips.map((s) => (
            <button key={s} type="button" class="small chip" onClick={() => onChange(s)}>
              {s}
            </button>
          ))}
        </fieldset>
      ) : null}
      {description ? <small class="hint">{description}</small> : null}
    </div>
  );
}
