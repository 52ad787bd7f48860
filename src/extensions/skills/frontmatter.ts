/**
 * A `SKILL.md`'s YAML frontmatter: split from the Markdown, parsed with the `yaml` package (YAML 1.2,
 * core schema, so every value is plain JSON: no dates, no custom tags; duplicate keys refused), and
 * checked against the Agent Skills specification's rules (agentskills.io/specification). A broken
 * file is a {@link SkillFileError} naming the file and the rule, said so that the author can fix it.
 */
import { parse, YAMLParseError } from 'yaml';
import { SwitchboardError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/types.js';
import { isPlainObject } from '../../util/guards.js';

/** The rules a `SKILL.md` is checked against, by the name errors give them. */
export type SkillRule =
  | 'frontmatter'
  | 'yaml'
  | 'name'
  | 'name-directory'
  | 'description'
  | 'compatibility'
  | 'license'
  | 'metadata'
  | 'allowed-tools';

const SPEC = 'https://agentskills.io/specification';

/** A `SKILL.md` that breaks a rule: `file` says which (as the caller named it), `rule` which rule. */
export class SkillFileError extends SwitchboardError {
  override name = 'SkillFileError';
  constructor(
    readonly file: string,
    readonly rule: SkillRule,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super('CONFIG', `${file}: ${problem} (Agent Skills rule "${rule}", ${SPEC}).`, options);
  }
}

/** The frontmatter block and what follows it; `undefined` if the text does not begin with one. */
export function splitFrontmatter(text: string): { yaml: string; body: string } | undefined {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const open = /^---[ \t]*\r?\n/.exec(text.slice(start));
  if (!open) return undefined;
  const from = start + open[0].length;
  const close = /^---[ \t]*(?:\r?\n|$)/m;
  const rest = text.slice(from);
  // An empty block: the closing line right after the opening one.
  const end = close.exec(rest);
  if (!end) return undefined;
  return { yaml: rest.slice(0, end.index), body: rest.slice(end.index + end[0].length) };
}

/**
 * The frontmatter as JSON, without checking the Agent Skills rules (what a host compares an entry's
 * `frontmatter` with). Throws a {@link SkillFileError} when there is no block or its YAML is broken.
 */
export function parseFrontmatter(text: string, file = 'SKILL.md'): JsonObject {
  const block = splitFrontmatter(text);
  if (!block) {
    throw new SkillFileError(
      file,
      'frontmatter',
      'does not begin with YAML frontmatter: the first line must be "---", then the fields (name: ..., description: ...), then a line "---"',
    );
  }
  let value: unknown;
  try {
    value = parse(block.yaml, { schema: 'core', uniqueKeys: true, prettyErrors: true, maxAliasCount: 100 });
  } catch (error) {
    const detail = error instanceof YAMLParseError ? error.message.split('\n')[0] : String(error);
    throw new SkillFileError(file, 'yaml', `its frontmatter is not valid YAML: ${detail}`, { cause: error });
  }
  if (!isPlainObject(value)) {
    throw new SkillFileError(
      file,
      'frontmatter',
      'its frontmatter must be a YAML mapping of fields (name: ..., description: ...)',
    );
  }
  return value as JsonObject;
}

const NAME = /^[a-z0-9-]+$/;

/** Why `name` breaks the naming rules, or undefined when it keeps them. */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 64) return `is ${name.length} characters long; names have 1 to 64`;
  if (!NAME.test(name)) return 'may hold only lowercase letters a-z, digits and hyphens';
  if (name.startsWith('-') || name.endsWith('-')) return 'must not start or end with a hyphen';
  if (name.includes('--')) return 'must not hold two hyphens in a row';
  return undefined;
}

/** A lowercase, hyphenated form of `text`, offered in the error for a name that breaks the rules. */
const suggestName = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64) || 'my-skill';

/**
 * Parses a `SKILL.md` and checks it: `name` (the naming rules, and equal to `directoryName`, the
 * skill directory's name), `description`, and the optional fields' types and lengths. Returns the
 * frontmatter verbatim.
 */
export function readSkillFrontmatter(text: string, file: string, directoryName: string): JsonObject {
  const fm = parseFrontmatter(text, file);
  const { name } = fm;
  if (typeof name !== 'string') {
    throw new SkillFileError(
      file,
      'name',
      `its frontmatter needs a "name" string (here ${describe(name)}), e.g. name: ${suggestName(directoryName)}`,
    );
  }
  const problem = nameProblem(name);
  if (problem) {
    throw new SkillFileError(
      file,
      'name',
      `the name ${JSON.stringify(name)} ${problem}; e.g. "${suggestName(name)}"`,
    );
  }
  if (name !== directoryName) {
    throw new SkillFileError(
      file,
      'name-directory',
      `the name ${JSON.stringify(name)} must equal its directory's name, ${JSON.stringify(directoryName)}: rename one of them`,
    );
  }
  checkFields(fm, file);
  return fm;
}

/**
 * The Agent Skills rules of every field but `name`: `description` (non-empty, at most 1024
 * characters) and the optional fields' types and lengths. Throws a {@link SkillFileError}.
 */
export function checkFields(fm: JsonObject, file: string): void {
  const { description, compatibility, license, metadata } = fm;
  if (typeof description !== 'string' || description.trim().length === 0) {
    throw new SkillFileError(
      file,
      'description',
      `its frontmatter needs a non-empty "description" string saying what the skill does and when to use it (here ${describe(description)})`,
    );
  }
  if (description.length > 1024) {
    throw new SkillFileError(
      file,
      'description',
      `the description is ${description.length} characters; at most 1024`,
    );
  }
  if (compatibility !== undefined && (typeof compatibility !== 'string' || compatibility.length > 500)) {
    throw new SkillFileError(
      file,
      'compatibility',
      'compatibility, when given, is a string of at most 500 characters',
    );
  }
  if (license !== undefined && typeof license !== 'string') {
    throw new SkillFileError(
      file,
      'license',
      'license, when given, is a string (a license name or a bundled file)',
    );
  }
  if (metadata !== undefined) {
    const ok = isPlainObject(metadata) && Object.values(metadata).every((v) => typeof v === 'string');
    if (!ok) throw new SkillFileError(file, 'metadata', 'metadata, when given, maps keys to string values');
  }
  const tools = fm['allowed-tools'];
  if (tools !== undefined && typeof tools !== 'string') {
    throw new SkillFileError(
      file,
      'allowed-tools',
      'allowed-tools, when given, is one string of space-separated tools',
    );
  }
}

const describe = (value: unknown): string =>
  value === undefined
    ? 'missing'
    : value === null
      ? 'null'
      : Array.isArray(value)
        ? 'a list'
        : `a ${typeof value}`;
