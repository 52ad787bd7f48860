/**
 * The readable rendering of what a server returns. Every function returns text ending in a newline
 * (or nothing); `--json` bypasses all of this and prints the raw result.
 */
import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  JsonObject,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  Tool,
} from '../protocol/types.js';
import { formatBytes } from '../util/bytes.js';
import { typeLabel } from './arguments.js';

const indent = (text: string, by: string): string =>
  text
    .split('\n')
    .map((line) => (line === '' ? line : by + line))
    .join('\n');

/** `name — Title`, or just the name when there is no distinct title. */
function heading(name: string, title: string | undefined): string {
  return title !== undefined && title !== name ? `${name} — ${title}` : name;
}

export function renderTools(tools: readonly Tool[]): string {
  if (tools.length === 0) return 'The server lists no tools.\n';
  return `${tools.map(renderTool).join('\n')}`;
}

function renderTool(tool: Tool): string {
  const lines = [heading(tool.name, tool.title ?? tool.annotations?.title)];
  if (tool.description) lines.push(indent(tool.description.trim(), '  '));
  const properties = Object.entries((tool.inputSchema.properties ?? {}) as Record<string, JsonObject>);
  const required = new Set(tool.inputSchema.required ?? []);
  if (properties.length === 0) {
    lines.push('  No parameters.');
  } else {
    lines.push('  Parameters:');
    for (const [name, schema] of properties) {
      let line = `    ${name}: ${typeLabel(schema)}${required.has(name) ? ' (required)' : ''}`;
      if (schema.default !== undefined) line += ` (default ${JSON.stringify(schema.default)})`;
      if (typeof schema.description === 'string') line += ` — ${schema.description}`;
      lines.push(line);
    }
  }
  if (tool.outputSchema) lines.push(`  Returns structured content: ${typeLabel(tool.outputSchema)}`);
  const hints = toolHints(tool);
  if (hints.length > 0) lines.push(`  Hints: ${hints.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function toolHints(tool: Tool): string[] {
  const a = tool.annotations ?? {};
  const hints: string[] = [];
  if (a.readOnlyHint) hints.push('read-only');
  if (a.destructiveHint === true && !a.readOnlyHint) hints.push('destructive');
  if (a.idempotentHint) hints.push('idempotent');
  if (a.openWorldHint === false) hints.push('closed world');
  return hints;
}

export function renderResources(
  resources: readonly Resource[],
  templates: readonly ResourceTemplate[],
): string {
  if (resources.length === 0 && templates.length === 0) return 'The server lists no resources.\n';
  const sections: string[] = [];
  if (resources.length > 0)
    sections.push(`Resources:\n${resources.map((r) => renderResource(r, r.uri)).join('')}`);
  if (templates.length > 0) {
    sections.push(`Resource templates:\n${templates.map((t) => renderResource(t, t.uriTemplate)).join('')}`);
  }
  return sections.join('\n');
}

function renderResource(item: Resource | ResourceTemplate, address: string): string {
  const lines = [`  ${address}`];
  const facts = [
    item.mimeType,
    'size' in item && item.size !== undefined ? formatBytes(item.size) : undefined,
  ];
  const known = facts.filter((f) => f !== undefined);
  lines.push(`    ${heading(item.name, item.title)}${known.length > 0 ? ` [${known.join(', ')}]` : ''}`);
  if (item.description) lines.push(indent(item.description.trim(), '    '));
  return `${lines.join('\n')}\n`;
}

export function renderPrompts(prompts: readonly Prompt[]): string {
  if (prompts.length === 0) return 'The server lists no prompts.\n';
  return prompts.map(renderPrompt).join('\n');
}

function renderPrompt(prompt: Prompt): string {
  const lines = [heading(prompt.name, prompt.title)];
  if (prompt.description) lines.push(indent(prompt.description.trim(), '  '));
  const args = prompt.arguments ?? [];
  if (args.length === 0) {
    lines.push('  No arguments.');
  } else {
    lines.push('  Arguments:');
    for (const arg of args) {
      let line = `    ${arg.name}${arg.required ? ' (required)' : ''}`;
      if (arg.description) line += ` — ${arg.description}`;
      lines.push(line);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A tool result: its content blocks, then any structured content not already shown as text. */
export function renderCallResult(result: CallToolResult): string {
  const structured = result.structuredContent;
  const structuredJson = structured === undefined ? undefined : JSON.stringify(structured);
  // Servers mirror structuredContent as a JSON text block for older clients; show it once, pretty.
  const blocks = result.content.filter(
    (block) =>
      !(block.type === 'text' && structuredJson !== undefined && sameJson(block.text, structuredJson)),
  );
  let out = blocks.map(renderBlock).join('');
  if (structured !== undefined) {
    out += `${out === '' ? '' : '\n'}Structured content:\n${JSON.stringify(structured, null, 2)}\n`;
  }
  return out === '' ? '(no content)\n' : out;
}

export function renderReadResult(result: ReadResourceResult): string {
  const [only, ...others] = result.contents;
  if (only === undefined) return '(no contents)\n';
  if (others.length === 0 && 'text' in only) return withNewline(only.text);
  return result.contents
    .map(
      (c) =>
        `${contentsHeader(c)}\n${'text' in c ? withNewline(c.text) : '(binary data; --json prints it as base64)\n'}`,
    )
    .join('');
}

export function renderPromptResult(result: GetPromptResult): string {
  let out = result.description ? `${result.description.trim()}\n\n` : '';
  out += result.messages.map((m) => `[${m.role}]\n${renderBlock(m.content)}`).join('\n');
  return out;
}

function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return withNewline(block.text);
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${formatBytes(base64Size(block.data))}]\n`;
    case 'resource_link': {
      const facts = [
        block.title ?? block.name,
        block.mimeType,
        block.size === undefined ? undefined : formatBytes(block.size),
      ];
      return `[resource link: ${block.uri} (${facts.filter((f) => f !== undefined).join(', ')})]\n`;
    }
    case 'resource': {
      const c = block.resource;
      return `${contentsHeader(c)}\n${'text' in c ? withNewline(c.text) : ''}`;
    }
    default:
      return `[${(block as { type?: unknown }).type ?? 'unknown'} content]\n`;
  }
}

/** `[resource: uri, mime]` for text, `[resource: uri, mime, 3 B]` for binary contents. */
function contentsHeader(c: ResourceContents): string {
  const facts = [c.uri, c.mimeType, 'blob' in c ? formatBytes(base64Size(c.blob)) : undefined];
  return `[resource: ${facts.filter((f) => f !== undefined).join(', ')}]`;
}

const withNewline = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

/** Decoded size of base64 data, without decoding it. */
function base64Size(data: string): number {
  const trimmed = data.replace(/\s/g, '');
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}
