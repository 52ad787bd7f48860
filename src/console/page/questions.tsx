/**
 * The server's questions, answered by the person: an elicitation form (or, in URL mode, a link
 * and consent), or a sampling request whose reply the person writes. Shown as a modal dialog.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ElicitParams } from '../../protocol/types.js';
import { run } from './api.js';
import { ContentView, JsonView } from './content.js';
import { followableUrl } from './links.js';
import { defaultsOf, type Schema, SchemaFields, validate } from './schema-form.js';
import { type PendingQuestion, useStore } from './store.js';

export function Questions() {
  const store = useStore();
  const first = store.questions.values().next().value as PendingQuestion | undefined;
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (first && !element.open) element.showModal();
    if (!first && element.open) element.close();
  });
  const connection = first ? store.connections.get(first.connectionId) : undefined;
  return (
    <dialog ref={dialog} aria-labelledby="question-title" onCancel={(e) => e.preventDefault()}>
      {first ? (
        <div key={`${first.connectionId}/${first.question.id}`}>
          <p class="muted">
            {connection?.serverInfo?.title ?? connection?.serverInfo?.name ?? connection?.label} asks:
          </p>
          {first.question.kind === 'elicitation' ? (
            <Elicitation pending={first} params={first.question.params} />
          ) : (
            <Sampling pending={first} params={first.question.params} />
          )}
        </div>
      ) : null}
    </dialog>
  );
}

const answer = (pending: PendingQuestion, result: Record<string, unknown>) =>
  run(pending.connectionId, 'answer', { questionId: pending.question.id, result });

function Elicitation({ pending, params }: { pending: PendingQuestion; params: ElicitParams }) {
  const url = 'url' in params && typeof params.url === 'string' ? params.url : undefined;
  const schema = (
    'requestedSchema' in params ? params.requestedSchema : { type: 'object', properties: {} }
  ) as Schema;
  const [value, setValue] = useState(() => defaultsOf(schema));
  const [problems, setProblems] = useState(new Map<string, string>());
  return (
    // The page's own checks speak (as alerts next to each field); the browser's would block the submit.
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (url) return void answer(pending, { action: 'accept' });
        const found = validate(schema, value);
        setProblems(found);
        if (found.size === 0) void answer(pending, { action: 'accept', content: value });
      }}
    >
      <h2 id="question-title">{url ? 'Open a link?' : 'Information requested'}</h2>
      <p class="question-message">{params.message}</p>
      {url ? (
        <p>
          <code class="url">{url}</code>{' '}
          {followableUrl(url) ? (
            <a href={url} target="_blank" rel="noopener noreferrer">
              Open in a new tab
            </a>
          ) : (
            <span class="muted">
              Not opened from here: only https addresses (and http on this computer) become links. Copy it
              only if you trust where it leads.
            </span>
          )}
        </p>
      ) : (
        <SchemaFields schema={schema} value={value} onChange={setValue} problems={problems} />
      )}
      <div class="actions">
        <button type="submit" class="primary">
          {url ? 'Accept' : 'Submit'}
        </button>
        <button type="button" onClick={() => void answer(pending, { action: 'decline' })}>
          Decline
        </button>
        <button type="button" onClick={() => void answer(pending, { action: 'cancel' })}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Sampling({ pending, params }: { pending: PendingQuestion; params: Record<string, unknown> }) {
  const [reply, setReply] = useState('');
  const [model, setModel] = useState('person-at-the-console');
  const messages = Array.isArray(params.messages)
    ? (params.messages as { role: string; content: unknown }[])
    : [];
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void answer(pending, {
          role: 'assistant',
          content: { type: 'text', text: reply },
          model,
          stopReason: 'endTurn',
        });
      }}
    >
      <h2 id="question-title">A model reply is requested (sampling)</h2>
      {typeof params.systemPrompt === 'string' ? (
        <p>
          <span class="badge">system</span> {params.systemPrompt}
        </p>
      ) : null}
      <SamplingLimits params={params} />
      <ol class="messages">
        {messages.map((m, i) => (
          <li key={i} class={`message ${m.role}`}>
            <span class="badge">{m.role}</span>
            {Array.isArray(m.content) ? (
              <JsonView value={m.content} />
            ) : (
              <ContentView block={m.content as never} onOpen={() => undefined} />
            )}
          </li>
        ))}
      </ol>
      <div class="field">
        <label for="sampling-reply">Reply</label>
        <textarea
          id="sampling-reply"
          rows={4}
          value={reply}
          required
          onInput={(e) => setReply(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="sampling-model">Model name</label>
        <input id="sampling-model" value={model} onInput={(e) => setModel(e.currentTarget.value)} />
      </div>
      <div class="actions">
        <button type="submit" class="primary">
          Send reply
        </button>
        <button type="button" onClick={() => void answer(pending, { action: 'decline' })}>
          Decline
        </button>
      </div>
    </form>
  );
}

/** What the request asks of the model beyond the messages: length, temperature, model hints, context. */
function SamplingLimits({ params }: { params: Record<string, unknown> }) {
  const hints = (params.modelPreferences as { hints?: { name?: string }[] } | undefined)?.hints ?? [];
  const facts = [
    typeof params.maxTokens === 'number' ? `at most ${params.maxTokens} tokens` : undefined,
    typeof params.temperature === 'number' ? `temperature ${params.temperature}` : undefined,
    hints.length > 0 ? `models: ${hints.map((h) => h.name).join(', ')}` : undefined,
    typeof params.includeContext === 'string' ? `context: ${params.includeContext}` : undefined,
    Array.isArray(params.stopSequences) ? `stops at: ${params.stopSequences.join(' | ')}` : undefined,
  ].filter((fact): fact is string => fact !== undefined);
  return facts.length > 0 ? (
    <p class="facts">
      {facts.map((fact) => (
        <span key={fact} class="badge">
          {fact}
        </span>
      ))}
    </p>
  ) : null;
}
