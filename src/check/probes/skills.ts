/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640), for a server that declares it:
 * `skills/list` walked to its end, every entry's form (URI, name, frontmatter, resources, limits),
 * `skills/get` of listed, unlisted and unknown skills, the files read back against their entries
 * (size, digest, SKILL.md frontmatter and MIME type) and, with `directoryRead`, every directory of
 * the listed skills read. A server that does not declare the extension has none of these rules.
 */

import {
  checkFields,
  nameProblem,
  parseFrontmatter,
  SkillFileError,
} from '../../extensions/skills/frontmatter.js';
import { sha256 } from '../../extensions/skills/skill-set.js';
import {
  DIRECTORY_MIME_TYPE,
  DIRECTORY_READ,
  DYNAMIC_RESOURCES,
  MAX_BYTES_PER_SKILL,
  MAX_RESOURCES_PER_SKILL,
  SKILLS_EXTENSION,
  SKILLS_GET,
  SKILLS_LIST,
  skillNameOf,
  skillRoot,
} from '../../extensions/skills/types.js';
import { base64ToBytes } from '../../util/base64.js';
import { errorMessage, isPlainObject } from '../../util/guards.js';
import { idsOf } from '../requirements.js';
import { brief, describeReply, type Json } from '../wire.js';
import type { ProbeContext } from './context.js';
import { walkList } from './lists.js';

/** Skills whose files are read back, and files read per skill, at most: enough to see a pattern. */
const MAX_SKILLS_READ = 5;
const MAX_FILES_READ = 20;
/** Directories read per skill at most. */
const MAX_DIRECTORIES = 10;
const UNKNOWN_SKILL = 'skill://switchboard-check-no-such-skill/SKILL.md';
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const encoder = new TextEncoder();

interface File {
  readonly uri: string;
  readonly digest: unknown;
  readonly size: unknown;
}

/** An entry the checker can follow: a uri and an array of files (each with a string uri). */
interface Entry {
  readonly uri: string;
  readonly frontmatter: Json;
  readonly files: readonly File[] | undefined;
}

export async function probeSkills(ctx: ProbeContext, resources: readonly Json[]): Promise<void> {
  const v = ctx.verdicts;
  const declared = (ctx.capabilities.extensions as Json | undefined)?.[SKILLS_EXTENSION];
  if (!isPlainObject(declared)) {
    for (const id of idsOf('skills'))
      v.notApplicable(id, `the server does not declare the ${SKILLS_EXTENSION} extension`);
    return;
  }
  const walk = await walkList(ctx, SKILLS_LIST, 'skills');
  if (!walk.ok) {
    v.fail('skills.list', `${SKILLS_LIST} was answered with ${describeReply(walk.reply)}`);
    for (const id of idsOf('skills')) v.notTested(id, `${SKILLS_LIST} was not answered with a result`);
    return;
  }
  const pages = ctx.wire.results.filter((r) => r.method === SKILLS_LIST);
  const bad = pages.find((r) => !Array.isArray(r.result.skills));
  v.expect(
    'skills.list',
    bad === undefined,
    `${SKILLS_LIST} answered ${pages.length} page(s) with ${walk.items.length} skill(s)`,
    () => `${SKILLS_LIST} answered ${brief(bad?.result)}: a page of the listing carries a skills array`,
  );
  const entries = walk.items.map((item, i) => judgeEntry(ctx, item, i)).filter((e) => e !== undefined);
  judgeNames(ctx, entries);
  judgeResourceMetadata(ctx, entries, resources);
  await probeGet(ctx, entries, resources);
  for (const entry of entries.slice(0, MAX_SKILLS_READ)) await readBack(ctx, entry);
  if (entries.length === 0) {
    for (const id of ['skills.get', 'skills.size', 'skills.digest', 'skills.frontmatter-identical']) {
      v.notTested(id, `${SKILLS_LIST} lists no skill`);
    }
  }
  if (declared.directoryRead === true) await probeDirectories(ctx, entries);
  else {
    for (const id of ['skills.directory-read', 'skills.directory-not-directory'])
      v.notApplicable(id, 'the server does not declare directoryRead');
  }
}

/** One listed entry's form; returns it when it can be followed further. */
function judgeEntry(ctx: ProbeContext, item: Json, index: number): Entry | undefined {
  const v = ctx.verdicts;
  const label = typeof item.uri === 'string' ? item.uri : `skills[${index}]`;
  const uri = typeof item.uri === 'string' ? item.uri : undefined;
  const frontmatter = isPlainObject(item.frontmatter) ? (item.frontmatter as Json) : undefined;
  const name = typeof frontmatter?.name === 'string' ? frontmatter.name : undefined;
  if (uri !== undefined) {
    v.expect(
      'skills.uri-scheme',
      uri.startsWith('skill://'),
      'skills are served under skill://',
      () => `the skill ${label} is not served under the skill:// scheme`,
    );
  }
  const segment =
    uri === undefined ? undefined : skillNameOf(uri.replace(/^[a-z][a-z0-9+.-]*:\/\//i, 'skill://'));
  v.expect(
    'skills.uri-name',
    segment !== undefined && segment === name,
    "each entry's uri ends in /<its name>/SKILL.md",
    () =>
      segment === undefined
        ? `the entry ${label} has a uri that is not <scheme>://<skill-path>/SKILL.md`
        : `the entry ${label} has the name ${brief(name)} in its frontmatter, but its uri's last skill-path segment is ${brief(segment)}`,
  );
  if (segment !== undefined) {
    const problem = nameProblem(segment);
    v.expect(
      'skills.name',
      problem === undefined,
      'every skill name keeps the Agent Skills naming rules',
      () => `the skill ${label} is named ${JSON.stringify(segment)}, which ${problem}`,
    );
  }
  if (frontmatter) {
    const problem = frontmatterProblem(frontmatter);
    v.expect(
      'skills.frontmatter',
      problem === undefined,
      "every entry's frontmatter keeps the Agent Skills rules",
      () => `the entry ${label}'s frontmatter ${brief(frontmatter)}: ${problem}`,
    );
  }
  const resources = item.resources;
  const files = Array.isArray(resources) ? resources : undefined;
  const wellFormed =
    resources === DYNAMIC_RESOURCES ||
    (files?.every(
      (f) =>
        isPlainObject(f) &&
        typeof f.uri === 'string' &&
        typeof f.digest === 'string' &&
        DIGEST.test(f.digest) &&
        Number.isSafeInteger(f.size) &&
        (f.size as number) >= 0,
    ) ??
      false);
  v.expect(
    'skills.resources',
    wellFormed,
    'every entry lists its files as {uri, digest, size} (or "dynamic")',
    () =>
      resources === undefined
        ? `the entry ${label} has no resources`
        : `the entry ${label} has resources ${brief(resources)}: an array of {uri, digest: "sha256:<64 lowercase hex>", size} or "dynamic"`,
  );
  if (uri === undefined || frontmatter === undefined) return undefined;
  const listed = files?.filter((f): f is File => isPlainObject(f) && typeof f.uri === 'string');
  if (listed) judgeFiles(ctx, uri, listed);
  return { uri, frontmatter, files: listed };
}

/** An entry's files: complete as far as the entry shows, under the skill's root, within the limits. */
function judgeFiles(ctx: ProbeContext, uri: string, files: readonly File[]): void {
  const v = ctx.verdicts;
  const uris = files.map((f) => f.uri);
  const twice = uris.filter((u, i) => uris.indexOf(u) !== i);
  v.expect(
    'skills.resources-complete',
    uris.includes(uri) && twice.length === 0,
    "every entry's resources list its SKILL.md, and each file once",
    () =>
      uris.includes(uri)
        ? `the entry ${uri} lists ${brief([...new Set(twice)])} more than once`
        : `the entry ${uri} does not list its own SKILL.md among its resources`,
  );
  const root = skillRoot(uri);
  const outside = uris.filter((u) => root === undefined || !u.startsWith(`${root}/`));
  v.expect(
    'skills.resources-within',
    outside.length === 0,
    "every entry's files are under its skill's root",
    () => `the entry ${uri} lists ${brief(outside)}, outside ${root ?? 'its skill'}/`,
  );
  const total = files.reduce((sum, f) => sum + (typeof f.size === 'number' ? f.size : 0), 0);
  v.expect(
    'skills.limits',
    files.length <= MAX_RESOURCES_PER_SKILL && total <= MAX_BYTES_PER_SKILL,
    'every skill is within 512 files and 16 MiB',
    () =>
      `the skill ${uri} has ${files.length} file(s) of ${total} bytes in all: hosts need accept only ${MAX_RESOURCES_PER_SKILL} files and ${MAX_BYTES_PER_SKILL} bytes`,
  );
}

function judgeNames(ctx: ProbeContext, entries: readonly Entry[]): void {
  const byName = new Map<string, string[]>();
  for (const e of entries) {
    const name = String(e.frontmatter.name);
    byName.set(name, [...(byName.get(name) ?? []), e.uri]);
  }
  const shared = [...byName].filter(([, uris]) => uris.length > 1);
  if (entries.length === 0) return;
  ctx.verdicts.expect(
    'skills.names-unique',
    shared.length === 0,
    `the ${entries.length} listed skill(s) have distinct names`,
    () =>
      shared
        .map(([name, uris]) => `the name ${JSON.stringify(name)} is shared by ${uris.join(' and ')}`)
        .join('; '),
  );
}

/** The resource of each listed SKILL.md (as resources/list shows it) named and described from its frontmatter. */
function judgeResourceMetadata(
  ctx: ProbeContext,
  entries: readonly Entry[],
  resources: readonly Json[],
): void {
  const v = ctx.verdicts;
  const shown = entries
    .map((entry) => ({ entry, resource: resources.find((r) => r.uri === entry.uri) }))
    .filter((s): s is { entry: Entry; resource: Json } => s.resource !== undefined);
  if (shown.length === 0) {
    for (const id of ['skills.skill-md-name', 'skills.skill-md-description'])
      v.notTested(id, "resources/list shows no listed skill's SKILL.md");
  }
  for (const { entry, resource } of shown) {
    for (const field of ['name', 'description'] as const) {
      v.expect(
        `skills.skill-md-${field}`,
        resource[field] === entry.frontmatter[field],
        `every listed SKILL.md's resource has its frontmatter's ${field}`,
        () =>
          `the resource ${entry.uri} has ${field} ${brief(resource[field])}; its frontmatter's is ${brief(entry.frontmatter[field])}`,
      );
    }
  }
}

/** skills/get of listed skills, of skills the listing leaves out, and of a URI that names none. */
async function probeGet(
  ctx: ProbeContext,
  entries: readonly Entry[],
  resources: readonly Json[],
): Promise<void> {
  const v = ctx.verdicts;
  for (const entry of entries.slice(0, MAX_SKILLS_READ)) {
    const reply = await ctx.request(SKILLS_GET, { uri: entry.uri });
    const skill = reply.kind === 'result' ? reply.result.skill : undefined;
    v.expect(
      'skills.get',
      isPlainObject(skill) && skill.uri === entry.uri,
      `${SKILLS_GET} answers listed skills with their entries`,
      () => `${SKILLS_GET} of the listed skill ${entry.uri} was answered with ${describeReply(reply)}`,
    );
  }
  const listed = new Set(entries.map((e) => e.uri));
  const unlisted = resources
    .map((r) => r.uri)
    .filter(
      (u): u is string => typeof u === 'string' && /^skill:\/\/.+\/SKILL\.md$/.test(u) && !listed.has(u),
    );
  if (unlisted.length === 0) {
    v.notTested(
      'skills.get-unlisted',
      `every skill://…/SKILL.md resource is in ${SKILLS_LIST}: no unlisted skill to ask for`,
    );
  }
  for (const uri of unlisted.slice(0, MAX_SKILLS_READ)) {
    const reply = await ctx.request(SKILLS_GET, { uri });
    const skill = reply.kind === 'result' ? reply.result.skill : undefined;
    v.expect(
      'skills.get-unlisted',
      isPlainObject(skill) && skill.uri === uri,
      `${SKILLS_GET} answers for skills ${SKILLS_LIST} leaves out`,
      () =>
        `${SKILLS_GET} of ${uri}, a SKILL.md the server lists among its resources but not in ${SKILLS_LIST}, was answered with ${describeReply(reply)}`,
    );
  }
  const reply = await ctx.request(SKILLS_GET, { uri: UNKNOWN_SKILL });
  v.expect(
    'skills.get-unknown',
    reply.kind === 'error' && reply.code === -32602,
    `${SKILLS_GET} of a URI that names no skill is refused with -32602`,
    () =>
      `${SKILLS_GET} of ${UNKNOWN_SKILL}, which names no skill, was answered with ${describeReply(reply)}; the SEP asks for error -32602`,
  );
}

/** Reads an entry's files (up to a limit) and compares each with what the entry says of it. */
async function readBack(ctx: ProbeContext, entry: Entry): Promise<void> {
  const v = ctx.verdicts;
  const files = entry.files ?? [{ uri: entry.uri, digest: undefined, size: undefined }];
  for (const file of files.slice(0, MAX_FILES_READ)) {
    const reply = await ctx.request('resources/read', { uri: file.uri });
    if (reply.kind === 'result' && reply.result.resultType === 'input_required') continue;
    const contents = reply.kind === 'result' ? reply.result.contents : undefined;
    const content = Array.isArray(contents)
      ? ((contents.find((c) => isPlainObject(c) && c.uri === file.uri) ?? contents[0]) as Json | undefined)
      : undefined;
    const bytes = bytesOf(content);
    if (!bytes) {
      for (const id of ['skills.size', 'skills.digest'])
        v.fail(
          id,
          `resources/read of ${file.uri}, listed by ${entry.uri}, was answered with ${describeReply(reply)}: no text or blob to compare`,
        );
      continue;
    }
    if (entry.files) {
      v.expect(
        'skills.size',
        bytes.byteLength === file.size,
        'every file read back has the size its entry gives',
        () =>
          `${file.uri} is ${bytes.byteLength} bytes; the entry of ${entry.uri} gives size ${brief(file.size)}`,
      );
      const digest = await sha256(bytes);
      v.expect(
        'skills.digest',
        digest === file.digest,
        'every file read back has the digest its entry gives',
        () => `${file.uri} hashes to ${digest}; the entry of ${entry.uri} gives digest ${brief(file.digest)}`,
      );
    }
    if (file.uri === entry.uri) judgeSkillMd(ctx, entry, content!);
  }
}

/** A SKILL.md read back: its frontmatter (Agent Skills rules, and the entry's), its MIME type. */
function judgeSkillMd(ctx: ProbeContext, entry: Entry, content: Json): void {
  const v = ctx.verdicts;
  v.expect(
    'skills.skill-md-mime',
    content.mimeType === 'text/markdown',
    'every SKILL.md is served as text/markdown',
    () => `${entry.uri} is served with mimeType ${brief(content.mimeType)}, not text/markdown`,
  );
  const text = typeof content.text === 'string' ? content.text : new TextDecoder().decode(bytesOf(content));
  let parsed: Json;
  try {
    parsed = parseFrontmatter(text, entry.uri);
  } catch (error) {
    v.fail('skills.frontmatter', `${entry.uri}: ${errorMessage(error)}`);
    v.fail('skills.frontmatter-identical', `${entry.uri} has no frontmatter to compare with its entry's`);
    return;
  }
  const differs = [...new Set([...Object.keys(parsed), ...Object.keys(entry.frontmatter)])].filter(
    (key) => JSON.stringify(parsed[key]) !== JSON.stringify(entry.frontmatter[key]),
  );
  v.expect(
    'skills.frontmatter-identical',
    differs.length === 0,
    "every SKILL.md read back has its entry's frontmatter",
    () =>
      `${entry.uri} differs from its entry's frontmatter in ${differs.map((k) => `${JSON.stringify(k)} (file ${brief(parsed[k])}, entry ${brief(entry.frontmatter[k])})`).join(', ')}`,
  );
  const problem = frontmatterProblem(parsed);
  v.expect(
    'skills.frontmatter',
    problem === undefined,
    'every SKILL.md read back has frontmatter that keeps the Agent Skills rules',
    () => `${entry.uri}: ${problem}`,
  );
}

/** Every directory a listed skill's files imply, read (with `directoryRead`); a file read as one. */
async function probeDirectories(ctx: ProbeContext, entries: readonly Entry[]): Promise<void> {
  const v = ctx.verdicts;
  let probedFile = false;
  for (const entry of entries.slice(0, MAX_SKILLS_READ)) {
    const root = skillRoot(entry.uri);
    if (root === undefined || !entry.files) continue;
    // The directories the entry implies, then any other the server shows under the root.
    const tree = directoriesOf(
      root,
      entry.files.map((f) => f.uri),
    );
    const queue = [...tree.keys()];
    const found: string[] = [];
    for (let at = 0; at < queue.length && at < MAX_DIRECTORIES; at++) {
      const directory = queue[at]!;
      const children = await readDirectory(ctx, directory);
      if (typeof children === 'string') {
        v.fail(
          'skills.directory-read',
          `${DIRECTORY_READ} of ${directory}, a directory of ${entry.uri}, was answered with ${children}`,
        );
        continue;
      }
      const expected = [...(tree.get(directory)?.values() ?? [])];
      const missing = expected.filter(
        (child) =>
          !children.some(
            (c) => c.uri === child.uri && (!child.directory || c.mimeType === DIRECTORY_MIME_TYPE),
          ),
      );
      v.expect(
        'skills.directory-read',
        missing.length === 0,
        `${DIRECTORY_READ} lists the children of every directory of the listed skills`,
        () =>
          `${DIRECTORY_READ} of ${directory} leaves out ${missing.map((c) => (c.directory ? `${c.uri} (as ${DIRECTORY_MIME_TYPE})` : c.uri)).join(', ')}, which the entry of ${entry.uri} implies`,
      );
      for (const c of children) {
        if (typeof c.uri !== 'string' || !c.uri.startsWith(`${root}/`)) continue;
        if (c.mimeType !== DIRECTORY_MIME_TYPE) found.push(c.uri);
        else if (!queue.includes(c.uri)) queue.push(c.uri);
      }
    }
    const listed = new Set(entry.files.map((f) => f.uri));
    const unlisted = found.filter((u) => !listed.has(u));
    if (unlisted.length > 0) {
      v.fail(
        'skills.resources-complete',
        `${DIRECTORY_READ} shows ${brief(unlisted)} in the skill ${entry.uri}, whose entry does not list them`,
      );
    }
    if (!probedFile) {
      probedFile = true;
      const reply = await ctx.request(DIRECTORY_READ, { uri: entry.uri });
      v.expect(
        'skills.directory-not-directory',
        reply.kind === 'error' && reply.code === -32602,
        `${DIRECTORY_READ} of a file is refused with -32602`,
        () =>
          `${DIRECTORY_READ} of ${entry.uri}, a file, was answered with ${describeReply(reply)}; the SEP asks for error -32602`,
      );
    }
  }
  const reply = await ctx.request(DIRECTORY_READ, { uri: 'skill://switchboard-check-no-such-skill' });
  v.expect(
    'skills.directory-not-directory',
    reply.kind === 'error' && reply.code === -32602,
    `${DIRECTORY_READ} of a URI that names nothing is refused with -32602`,
    () =>
      `${DIRECTORY_READ} of skill://switchboard-check-no-such-skill, which names nothing, was answered with ${describeReply(reply)}; the SEP asks for error -32602`,
  );
  if (entries.every((e) => !e.files))
    v.notTested('skills.directory-read', 'no listed skill has a list of files');
}

interface Child {
  readonly uri: string;
  readonly directory: boolean;
}

/** The directories under `root` that `files` imply, each with the children it must show. */
function directoriesOf(root: string, files: readonly string[]): Map<string, Map<string, Child>> {
  const tree = new Map<string, Map<string, Child>>([[root, new Map()]]);
  for (const file of files) {
    if (!file.startsWith(`${root}/`)) continue;
    const segments = file.slice(root.length + 1).split('/');
    let directory = root;
    for (const [i, segment] of segments.entries()) {
      const child = `${directory}/${segment}`;
      const last = i === segments.length - 1;
      tree.get(directory)!.set(child, { uri: child, directory: !last });
      if (last) break;
      if (!tree.has(child)) tree.set(child, new Map());
      directory = child;
    }
  }
  return tree;
}

/** Every child of a directory (all pages), or what the server answered instead. */
async function readDirectory(ctx: ProbeContext, uri: string): Promise<Json[] | string> {
  const children: Json[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const reply = await ctx.request(DIRECTORY_READ, cursor === undefined ? { uri } : { uri, cursor });
    if (reply.kind !== 'result' || !Array.isArray(reply.result.resources)) return describeReply(reply);
    children.push(...reply.result.resources.filter((c): c is Json => isPlainObject(c)));
    const next = reply.result.nextCursor;
    if (typeof next !== 'string' || next === cursor) break;
    cursor = next;
  }
  return children;
}

/** The raw bytes of a resource content: its text as UTF-8, or its blob decoded. */
function bytesOf(content: Json | undefined): Uint8Array | undefined {
  if (!isPlainObject(content)) return undefined;
  if (typeof content.text === 'string') return encoder.encode(content.text);
  if (typeof content.blob === 'string') {
    try {
      return base64ToBytes(content.blob);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** What of the Agent Skills rules a frontmatter breaks besides its name (skills.name's), or undefined. */
function frontmatterProblem(frontmatter: Json): string | undefined {
  if (typeof frontmatter.name !== 'string')
    return `it has no "name" string (here ${brief(frontmatter.name)})`;
  try {
    checkFields(frontmatter, 'SKILL.md');
    return undefined;
  } catch (error) {
    if (error instanceof SkillFileError) return error.message.replace(/^SKILL\.md: /, '');
    return errorMessage(error);
  }
}
