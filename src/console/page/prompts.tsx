/** The Prompts tab: arguments (completed as the person types), and the messages a model would get. */
import { useState } from 'preact/hooks';
import type { GetPromptResult, Prompt } from '../../protocol/types.js';
import type { ConnectionSummary } from '../api-types.js';
import { run } from './api.js';
import { ContentView, ErrorView, JsonView } from './content.js';
import { upstreamOfName } from './gateway.js';
import { Icon, ItemList } from './item-list.js';
import { CompletedInput } from './resources.js';
import { useList } from './use-list.js';

export function PromptsTab({
  connection,
  selected,
  onSelect,
  onOpen,
}: {
  connection: ConnectionSummary;
  /** The prompt shown (the deep link's item). */
  selected: string | undefined;
  onSelect: (name: string) => void;
  onOpen: (uri: string) => void;
}) {
  const list = useList(connection.id, 'prompts', (r) => r.prompts);
  const prompt = list.items?.find((p) => p.name === selected);
  return (
    <div class="split">
      <nav class="list" aria-label="Prompts">
        <ItemList
          heading="Prompts"
          items={list.items?.map((p) => ({
            ...p,
            key: p.name,
            title: p.title ?? p.name,
            subtitle: p.name,
            group: upstreamOfName(connection.gateway, p.name),
          }))}
          current={selected}
          onSelect={onSelect}
          onRefresh={list.reload}
          error={list.error}
        />
      </nav>
      <section class="detail" aria-label="Prompt">
        {prompt ? (
          <PromptView key={prompt.name} connection={connection} prompt={prompt} onOpen={onOpen} />
        ) : (
          <p class="muted">Choose a prompt.</p>
        )}
      </section>
    </div>
  );
}

function PromptView({
  connection,
  prompt,
  onOpen,
}: {
  connection: ConnectionSummary;
  prompt: Prompt;
  onOpen: (uri: string) => void;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState<{ result?: GetPromptResult; error?: string } | undefined>(undefined);
  const missing = (prompt.arguments ?? []).filter((a) => a.required && !values[a.name]);
  return (
    <form
      aria-label={`Get ${prompt.name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        if (missing.length > 0)
          return setOutcome({ error: `Fill in ${missing.map((a) => a.title ?? a.name).join(', ')}.` });
        const args = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
        const answer = await run(connection.id, 'prompt', { name: prompt.name, arguments: args });
        setOutcome(answer.ok ? { result: answer.result } : { error: answer.error.message });
      }}
    >
      <h2>
        <Icon item={prompt} /> {prompt.title ?? prompt.name} <code class="muted">{prompt.name}</code>
      </h2>
      {prompt.description ? <p>{prompt.description}</p> : null}
      <div class="fields">
        {(prompt.arguments ?? []).map((a) => (
          <CompletedInput
            key={a.name}
            connection={connection}
            name={a.name}
            label={a.title ?? a.name}
            required={a.required ?? false}
            {...(a.description ? { description: a.description } : {})}
            value={values[a.name] ?? ''}
            reference={{ type: 'ref/prompt', name: prompt.name }}
            context={values}
            onChange={(value) => setValues((old) => ({ ...old, [a.name]: value }))}
          />
        ))}
      </div>
      <button type="submit" class="primary">
        Get prompt
      </button>
      {outcome?.error ? <ErrorView message={outcome.error} /> : null}
      {outcome?.result ? (
        <section class="result" aria-label="Messages">
          {outcome.result.description ? <p>{outcome.result.description}</p> : null}
          <ol class="messages">
            {outcome.result.messages.map((m, i) => (
              <li key={i} class={`message ${m.role}`}>
                <span class="badge">{m.role}</span>
                <ContentView block={m.content} onOpen={onOpen} />
              </li>
            ))}
          </ol>
          <details>
            <summary>Raw result</summary>
            <JsonView value={outcome.result} label="result" />
          </details>
        </section>
      ) : null}
    </form>
  );
}
