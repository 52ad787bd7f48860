/**
 * Per-revision codecs: the model inside is version-neutral (see `types.ts`); these functions make
 * what we send fit the revision the peer speaks. For the newest revisions most of them return their
 * input untouched (no copies on the hot path); for older ones they drop fields the revision lacks and
 * downgrade what cannot be dropped silently (structured output becomes text, a resource link becomes
 * a text line, audio becomes a note).
 *
 * They never mutate their input: handlers may return shared constant objects.
 */
import type { RevisionFeatures } from './revisions.js';
import type {
  Annotations,
  CallToolResult,
  ClientCapabilities,
  ContentBlock,
  GetPromptResult,
  Implementation,
  Prompt,
  PromptArgument,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  ServerCapabilities,
  TextContent,
  Tool,
} from './types.js';

type Obj = Record<string, unknown>;

/** Copies `source` without `keys` (only when at least one is present). */
function omit<T extends object>(source: T, keys: readonly string[]): T {
  let copy: Obj | undefined;
  for (const key of keys) {
    if (key in source) {
      copy ??= { ...(source as Obj) };
      delete copy[key];
    }
  }
  return (copy ?? source) as T;
}

/** Fields introduced in 2025-06-18 / 2025-11-25 on descriptor-like objects. */
const STRUCTURED_FIELDS = ['title', '_meta'] as const;
const ICON_FIELDS = ['icons'] as const;

function descriptorFields(f: RevisionFeatures): string[] {
  const keys: string[] = [];
  if (!f.structured) keys.push(...STRUCTURED_FIELDS);
  if (!f.icons) keys.push(...ICON_FIELDS);
  return keys;
}

function encodeAnnotations(annotations: Annotations, f: RevisionFeatures): Annotations {
  return f.structured ? annotations : omit(annotations, ['lastModified']);
}

function withAnnotations<T extends { annotations?: Annotations }>(value: T, f: RevisionFeatures): T {
  if (f.structured || value.annotations === undefined) return value;
  return { ...value, annotations: encodeAnnotations(value.annotations, f) };
}

// --- descriptors -----------------------------------------------------------------------------

export function encodeImplementation(info: Implementation, f: RevisionFeatures): Implementation {
  if (f.icons) return info;
  const keys = ['icons', 'description', 'websiteUrl'];
  if (!f.structured) keys.push('title');
  return omit(info, keys);
}

export function encodeTool(tool: Tool, f: RevisionFeatures): Tool {
  if (f.icons && (f.revision === '2025-11-25' || tool.execution === undefined)) return tool;
  const keys = descriptorFields(f);
  if (!f.structured) keys.push('outputSchema');
  if (!f.annotations) keys.push('annotations');
  // `execution` exists only in 2025-11-25. The 2026-07-28 tasks extension is server-directed: its
  // tools carry no task declaration (the server decides per call), so the field never goes out there.
  if (f.revision !== '2025-11-25') keys.push('execution');
  return omit(tool, keys);
}

export function encodeResource(resource: Resource, f: RevisionFeatures): Resource {
  if (f.icons) return resource;
  return withAnnotations(omit(resource, descriptorFields(f)), f);
}

export function encodeResourceTemplate(template: ResourceTemplate, f: RevisionFeatures): ResourceTemplate {
  if (f.icons) return template;
  return withAnnotations(omit(template, descriptorFields(f)), f);
}

function encodePromptArgument(arg: PromptArgument, f: RevisionFeatures): PromptArgument {
  return f.structured ? arg : omit(arg, ['title']);
}

export function encodePrompt(prompt: Prompt, f: RevisionFeatures): Prompt {
  if (f.icons) return prompt;
  const out = omit(prompt, descriptorFields(f));
  if (f.structured || out.arguments === undefined) return out;
  return { ...out, arguments: out.arguments.map((a) => encodePromptArgument(a, f)) };
}

// --- capabilities ----------------------------------------------------------------------------

export function encodeServerCapabilities(caps: ServerCapabilities, f: RevisionFeatures): ServerCapabilities {
  const keys: string[] = [];
  if (!f.annotations) keys.push('completions');
  if (f.revision !== '2025-11-25') keys.push('tasks');
  if (!f.modern) keys.push('extensions');
  return omit(caps, keys);
}

/**
 * Client capabilities. `extensions` stays on legacy revisions too, although their schemas predate
 * it: extensions are negotiated in `initialize` there (the MCP Apps specification declares
 * `extensions["io.modelcontextprotocol/ui"]` in an `initialize` of 2024-11-05, and legacy servers
 * read it there). Only a client that declares an extension sends the field.
 */
export function encodeClientCapabilities(caps: ClientCapabilities, f: RevisionFeatures): ClientCapabilities {
  const keys: string[] = [];
  if (!f.structured) keys.push('elicitation');
  if (f.revision !== '2025-11-25') keys.push('tasks');
  let out = omit(caps, keys);
  if (out.elicitation && !f.icons && Object.keys(out.elicitation).length > 0) {
    // Modes (`form`/`url`) arrived in 2025-11-25; before that the capability was an empty object.
    out = { ...out, elicitation: {} };
  }
  if (out.roots && f.modern && 'listChanged' in out.roots) out = { ...out, roots: {} };
  return out;
}

// --- content ---------------------------------------------------------------------------------

function encodeResourceContents(contents: ResourceContents, f: RevisionFeatures): ResourceContents {
  return f.structured ? contents : omit(contents, ['_meta']);
}

const describeResourceLink = (link: Resource): string =>
  `Resource: ${link.title ?? link.name} <${link.uri}>${link.description ? ` — ${link.description}` : ''}`;

/** Encodes one content block; may turn a block the revision lacks into a text block. */
export function encodeContentBlock(block: ContentBlock, f: RevisionFeatures): ContentBlock {
  if (f.structured) {
    if (f.icons || block.type !== 'resource_link') return block;
    return omit(block, ICON_FIELDS);
  }
  switch (block.type) {
    case 'resource_link': {
      const text: TextContent = { type: 'text', text: describeResourceLink(block) };
      return block.annotations ? { ...text, annotations: encodeAnnotations(block.annotations, f) } : text;
    }
    case 'audio':
      if (!f.annotations) {
        return {
          type: 'text',
          text: `[audio content (${block.mimeType}) omitted: protocol revision ${f.revision} cannot carry audio]`,
        };
      }
      return withAnnotations(omit(block, ['_meta']), f);
    case 'resource': {
      const out = withAnnotations(omit(block, ['_meta']), f);
      return { ...out, resource: encodeResourceContents(out.resource, f) };
    }
    default:
      return withAnnotations(omit(block, ['_meta']), f);
  }
}

export function encodeContent(blocks: ContentBlock[], f: RevisionFeatures): ContentBlock[] {
  if (f.icons) {
    // Only resource links can carry a field (icons) that 2025-11-25+ lacks... and they all have it.
    return blocks;
  }
  return blocks.map((b) => encodeContentBlock(b, f));
}

// --- results ---------------------------------------------------------------------------------

/**
 * Tool results. `structuredContent` on a revision without it is dropped; the text rendering of it
 * that the server adds to `content` (see the tool dispatcher) keeps the information.
 */
export function encodeCallToolResult(result: CallToolResult, f: RevisionFeatures): CallToolResult {
  if (f.icons) return result;
  const out = f.structured ? result : omit(result, ['structuredContent']);
  return { ...out, content: encodeContent(out.content, f) };
}

export function encodeReadResourceResult(
  result: ReadResourceResult,
  f: RevisionFeatures,
): ReadResourceResult {
  if (f.structured) return result;
  return { ...result, contents: result.contents.map((c) => encodeResourceContents(c, f)) };
}

export function encodeGetPromptResult(result: GetPromptResult, f: RevisionFeatures): GetPromptResult {
  if (f.icons) return result;
  return {
    ...result,
    messages: result.messages.map((m) => ({ role: m.role, content: encodeContentBlock(m.content, f) })),
  };
}

/** Progress notification params: `message` arrived in 2025-03-26. */
export function encodeProgressParams(params: Obj, f: RevisionFeatures): Obj {
  return f.annotations ? params : omit(params, ['message']);
}
