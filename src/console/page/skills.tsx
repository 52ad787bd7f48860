/**
 * The Skills tab: the server's Agent Skills (the Skills extension's `skills/list`), each with its
 * frontmatter, its SKILL.md rendered with the safe Markdown renderer, and its files to browse. Every
 * file is read through the console's verified read (listed in the entry, size and digest as listed).
 */
import { useEffect, useState } from 'preact/hooks';
import type { ConnectionSummary, Operations } from '../api-types.js';
import { run } from './api.js';
import { ErrorView, JsonView } from './content.js';
import { ItemList } from './item-list.js';
import { Markdown } from './markdown.js';
import { useList } from './use-list.js';

type Skill = Operations['skills']['result']['skills'][number];
type SkillFile = Operations['skill-file']['result'];

export function SkillsTab({
  connection,
  selected,
  onSelect,
}: {
  connection: ConnectionSummary;
  /** The SKILL.md URI of the skill shown (the deep link's item). */
  selected: string | undefined;
  onSelect: (uri: string) => void;
}) {
  const list = useList(connection.id, 'skills', (r) => r.skills);
  const skill = list.items?.find((s) => s.uri === selected);
  return (
    <div class="split">
      <nav class="list" aria-label="Skills">
        <ItemList
          heading="Skills"
          items={list.items?.map((s) => ({ key: s.uri, title: s.frontmatter.name, subtitle: s.uri }))}
          current={selected}
          onSelect={onSelect}
          onRefresh={list.reload}
          error={list.error}
        />
      </nav>
      <section class="detail" aria-label="Skill">
        {skill ? (
          <SkillView key={skill.uri} connection={connection} skill={skill} />
        ) : (
          <p class="muted">Choose a skill.</p>
        )}
      </section>
    </div>
  );
}

/** `---\n...\n---\n` at the top: shown as the frontmatter table, not as Markdown. */
const body = (text: string) => text.replace(/^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/, '');

function SkillView({ connection, skill }: { connection: ConnectionSummary; skill: Skill }) {
  const [open, setOpen] = useState(skill.uri);
  const [file, setFile] = useState<{ result?: SkillFile; error?: string } | undefined>(undefined);
  useEffect(() => {
    setFile(undefined);
    void run(connection.id, 'skill-file', { uri: open }).then((answer) =>
      setFile(answer.ok ? { result: answer.result } : { error: answer.error.message }),
    );
  }, [connection.id, open]);
  const files = Array.isArray(skill.resources) ? skill.resources : [];
  return (
    <>
      <h2>
        {skill.frontmatter.name} <code class="muted">{skill.uri}</code>
      </h2>
      <p>{skill.frontmatter.description}</p>
      <details>
        <summary>Frontmatter</summary>
        <JsonView value={skill.frontmatter} />
      </details>
      <h3>Files</h3>
      {files.length === 0 ? <p class="muted">Generated content (no file manifest).</p> : null}
      <ul aria-label="Files">
        {files.map((f) => (
          <li key={f.uri}>
            <button type="button" class="item" aria-current={f.uri === open} onClick={() => setOpen(f.uri)}>
              {f.uri.slice(skill.uri.length - 'SKILL.md'.length)} <span class="muted">{f.size} bytes</span>
            </button>
          </li>
        ))}
      </ul>
      <section aria-label="File">
        {file === undefined ? <p class="muted">Reading…</p> : null}
        {file?.error ? <ErrorView message={file.error} /> : null}
        {file?.result ? <FileView file={file.result} isSkill={file.result.uri === skill.uri} /> : null}
      </section>
    </>
  );
}

function FileView({ file, isSkill }: { file: SkillFile; isSkill: boolean }) {
  if (file.text === undefined) {
    return (
      <p class="muted">
        {file.mimeType ?? 'binary'}, {file.size} bytes (verified; not shown).
      </p>
    );
  }
  if (file.mimeType === 'text/markdown') return <Markdown text={isSkill ? body(file.text) : file.text} />;
  return <pre>{file.text}</pre>;
}
