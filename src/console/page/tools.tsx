/** The Tools tab: the list, a generated form per tool, the call with progress and cancel, its result. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { toolUi } from '../../extensions/apps-tools.js';
import type { CallToolResult, Tool } from '../../protocol/types.js';
import type { ApiError, ConnectionSummary } from '../api-types.js';
import { run } from './api.js';
import { AppView } from './app-view.js';
import { ContentView, ErrorView, JsonView } from './content.js';
import { upstreamOfName } from './gateway.js';
import { Icon, ItemList } from './item-list.js';
import { ArgumentsEditor, defaultsOf, type Schema, validate } from './schema-form.js';
import { store, useStore } from './store.js';
import { useList } from './use-list.js';

let nextCall = 1;

export interface CallOutcomeValue {
  readonly result?: CallToolResult;
  readonly error?: ApiError;
  readonly ms: number;
}

/** One tool call, timed and written into the connection's history (which can replay it). */
export async function callTool(
  connectionId: string,
  name: string,
  args: Record<string, unknown>,
  callId = `call-${nextCall++}`,
): Promise<CallOutcomeValue> {
  const started = performance.now();
  const answer = await run(connectionId, 'call', { name, arguments: args, callId });
  const ms = Math.round(performance.now() - started);
  const outcome = answer.ok ? { result: answer.result, ms } : { error: answer.error, ms };
  store.record(connectionId, { tool: name, arguments: args, at: Date.now(), ...outcome });
  return outcome;
}

export function ToolsTab({
  connection,
  selected,
  onSelect,
  prefill,
  onOpen,
}: {
  connection: ConnectionSummary;
  /** The tool shown (the deep link's item). */
  selected: string | undefined;
  onSelect: (name: string) => void;
  /** Arguments to start the form with instead of the schema's defaults. */
  prefill: Record<string, unknown> | undefined;
  onOpen: (uri: string) => void;
}) {
  const list = useList(connection.id, 'tools', (r) => r.tools);
  const tool = list.items?.find((t) => t.name === selected);
  return (
    <div class="split">
      <nav class="list" aria-label="Tools">
        <ItemList
          heading="Tools"
          items={list.items?.map((t) => ({
            ...t,
            key: t.name,
            title: t.title ?? t.annotations?.title ?? t.name,
            subtitle: t.name,
            group: upstreamOfName(connection.gateway, t.name),
          }))}
          current={selected}
          onSelect={onSelect}
          onRefresh={list.reload}
          error={list.error}
        />
      </nav>
      <section class="detail" aria-label="Tool">
        {tool ? (
          <ToolView
            key={`${tool.name}/${JSON.stringify(prefill)}`}
            connection={connection}
            tool={tool}
            tools={list.items}
            prefill={prefill}
            onOpen={onOpen}
          />
        ) : (
          <p class="muted">Choose a tool.</p>
        )}
      </section>
    </div>
  );
}

const HINTS: [keyof NonNullable<Tool['annotations']>, string][] = [
  ['readOnlyHint', 'read-only'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'open world'],
];

function ToolView({
  connection,
  tool,
  tools,
  prefill,
  onOpen,
}: {
  connection: ConnectionSummary;
  tool: Tool;
  tools: readonly Tool[] | undefined;
  prefill: Record<string, unknown> | undefined;
  onOpen: (uri: string) => void;
}) {
  const store = useStore();
  const schema = tool.inputSchema as Schema;
  const [args, setArgs] = useState(() => prefill ?? defaultsOf(schema));
  const [problems, setProblems] = useState(new Map<string, string>());
  const [callId, setCallId] = useState<string | undefined>(undefined);
  const [outcome, setOutcome] = useState<CallOutcomeValue | undefined>(undefined);
  const progress = callId ? store.progress.get(callId) : undefined;
  const form = useRef<HTMLFormElement>(null);
  // Keyboard users keep their place: a tool chosen from the list brings the focus to its form; a
  // call moves it from the (now disabled) Call button to Cancel, and its end to the result.
  useEffect(() => {
    if (document.activeElement?.closest('nav.list')) form.current?.querySelector<HTMLElement>('h2')?.focus();
  }, []);
  useEffect(() => {
    const lost = () => document.activeElement === null || document.activeElement === document.body;
    if (callId) form.current?.querySelector<HTMLElement>('.actions .cancel')?.focus();
    else if (outcome && lost()) form.current?.querySelector<HTMLElement>('.result h3')?.focus();
  }, [callId, outcome]);

  async function call(event: Event) {
    event.preventDefault();
    const found = validate(schema, args);
    setProblems(found);
    if (found.size > 0) return;
    const id = `call-${nextCall++}`;
    setCallId(id);
    setOutcome(undefined);
    setOutcome(await callTool(connection.id, tool.name, args, id));
    setCallId(undefined);
  }

  const hints = HINTS.filter(([key]) => tool.annotations?.[key] === true);
  // An MCP Apps view linked to the tool: its result is shown there too.
  const view = toolUi(tool)?.resourceUri;
  return (
    // noValidate: the page's own checks speak (as alerts next to each field), not the browser's bubbles.
    <form onSubmit={call} noValidate class="tool" aria-label={`Call ${tool.name}`} ref={form}>
      <h2 tabIndex={-1}>
        <Icon item={tool} /> {tool.title ?? tool.annotations?.title ?? tool.name}{' '}
        <code class="muted">{tool.name}</code>
      </h2>
      {tool.description ? <p>{tool.description}</p> : null}
      {hints.length > 0 ? (
        <p class="badges">
          {hints.map(([key, label]) => (
            <span key={key} class="badge">
              {label}
            </span>
          ))}
        </p>
      ) : null}
      <ArgumentsEditor schema={schema} value={args} onChange={setArgs} problems={problems} />
      <div class="actions">
        <button type="submit" class="primary" disabled={callId !== undefined}>
          Call {tool.name}
        </button>
        {callId ? (
          <button type="button" class="cancel" onClick={() => void run(connection.id, 'cancel', { callId })}>
            Cancel
          </button>
        ) : null}
      </div>
      {callId ? (
        <div class="progress" aria-live="polite">
          {progress ? (
            <>
              <progress
                value={progress.progress}
                {...(progress.total === undefined ? {} : { max: progress.total })}
              />{' '}
              <span>
                {progress.message ??
                  `${progress.progress}${progress.total === undefined ? '' : ` / ${progress.total}`}`}
              </span>
            </>
          ) : (
            <span>Running…</span>
          )}
        </div>
      ) : null}
      {outcome ? <CallOutcome {...outcome} tool={tool} onOpen={onOpen} /> : null}
      {outcome?.result && view !== undefined && !outcome.result.isError ? (
        <AppView connectionId={connection.id} uri={view} args={args} result={outcome.result} tools={tools} />
      ) : null}
    </form>
  );
}

export function CallOutcome({
  result,
  error,
  ms,
  tool,
  onOpen,
}: {
  result?: CallToolResult;
  error?: ApiError;
  ms: number;
  /** The tool called, when the page has its definition (its outputSchema is shown as checked). */
  tool?: Tool;
  onOpen: (uri: string) => void;
}) {
  return (
    <section class="result" aria-label="Result" aria-live="polite">
      <h3 tabIndex={-1}>
        Result <small class="muted">{ms} ms</small>
      </h3>
      {error ? <ErrorView message={error.message} code={error.code} /> : null}
      {result?.isError ? <ErrorView message="The tool reported an error (isError)." /> : null}
      {result?.content?.map((block, i) => (
        <ContentView key={i} block={block} onOpen={onOpen} />
      ))}
      {result?.structuredContent !== undefined ? (
        <div>
          <h4>
            Structured content{' '}
            {tool?.outputSchema ? <span class="badge ok">matches outputSchema</span> : null}
          </h4>
          <JsonView value={result.structuredContent} label="structured content" />
        </div>
      ) : null}
      {result ? (
        <details>
          <summary>Raw result</summary>
          <JsonView value={result} label="result" />
        </details>
      ) : null}
    </section>
  );
}
