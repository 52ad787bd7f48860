/**
 * One test's request sent through the Client, and what came back as an `Answer`: the outcome
 * (`ok`, `isError`, `error`), the value the checks look into (the result, or for a JSON-RPC error
 * `{ code, message, data }`), and its text. The Client checks every result's shape and, for a tool
 * it listed with an outputSchema, the structuredContent; an answer that breaks those is no answer
 * (the test fails with the Client's reason).
 */
import type { Client } from '../extensions/client.js';
import { ProtocolError } from '../protocol/errors.js';
import { isPlainObject } from '../util/guards.js';
import { canonicalJson } from './compare.js';
import type { Outcome, Step } from './format.js';

export interface Answer {
  readonly outcome: Outcome;
  readonly value: unknown;
  readonly text: string;
  readonly durationMs: number;
}

/** The request could not be answered in a way a check can look at (a timeout, a malformed result). */
export class NoAnswer extends Error {
  override readonly name = 'NoAnswer';
}

export async function ask(client: Client, step: Step, timeoutMs: number): Promise<Answer> {
  const started = performance.now();
  const options = { timeoutMs };
  let value: unknown;
  try {
    switch (step.kind) {
      case 'call':
        value = await client.callTool(step.tool, step.args ? { ...step.args } : undefined, options);
        break;
      case 'read':
        value = await client.readResource(step.uri, options);
        break;
      case 'prompt':
        value = await client.getPrompt(step.name, step.args ? { ...step.args } : undefined, options);
        break;
      case 'request':
        value = await client.request(step.method, { ...step.params }, options);
        break;
      case 'list':
        value = await list(client, step.of, timeoutMs);
        break;
    }
  } catch (error) {
    const durationMs = performance.now() - started;
    if (error instanceof ProtocolError) {
      const object = {
        code: error.code,
        message: error.message,
        ...(error.data !== undefined ? { data: error.data } : {}),
      };
      return { outcome: 'error', value: object, text: error.message, durationMs };
    }
    throw new NoAnswer(error instanceof Error ? error.message : String(error), { cause: error });
  }
  const durationMs = performance.now() - started;
  const outcome = isPlainObject(value) && value.isError === true ? 'isError' : 'ok';
  return { outcome, value, text: textOf(value), durationMs };
}

/** Every page, items sorted by name (URI, URI template), so neither paging nor order changes it. */
async function list(client: Client, of: Extract<Step, { kind: 'list' }>['of'], timeoutMs: number) {
  const options = { timeoutMs };
  const byKey =
    <K extends string>(key: K) =>
    (a: { [k in K]: string }, b: { [k in K]: string }) =>
      a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0;
  switch (of) {
    case 'tools':
      return { tools: [...(await client.listTools(options)).tools].sort(byKey('name')) };
    case 'prompts':
      return { prompts: [...(await client.listPrompts(options)).prompts].sort(byKey('name')) };
    case 'resources':
      return { resources: [...(await client.listResources(options)).resources].sort(byKey('uri')) };
    case 'resourceTemplates':
      return {
        resourceTemplates: [...(await client.listResourceTemplates(options)).resourceTemplates].sort(
          byKey('uriTemplate'),
        ),
      };
  }
}

/**
 * The text `text:` compares: a tool result's text blocks, a resource's text contents, a prompt's
 * text messages (joined with newlines); of anything else its JSON.
 */
export function textOf(value: unknown): string {
  if (!isPlainObject(value)) return canonicalJson(value);
  const texts = (items: unknown): string[] =>
    Array.isArray(items)
      ? items.flatMap((item) => {
          if (!isPlainObject(item)) return [];
          if (typeof item.text === 'string') return [item.text];
          // A prompt message holds one content block (or, in 2026-07-28, a list of them).
          if ('content' in item) return texts(Array.isArray(item.content) ? item.content : [item.content]);
          return [];
        })
      : [];
  if (Array.isArray(value.content)) return texts(value.content).join('\n');
  if (Array.isArray(value.contents)) return texts(value.contents).join('\n');
  if (Array.isArray(value.messages)) return texts(value.messages).join('\n');
  return canonicalJson(value);
}
