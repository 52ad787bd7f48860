/**
 * The shape checks a client runs on the result of every built-in request before it hands it to its
 * caller: a server that answers `resources/read` without `contents`, or a completion whose values
 * are not strings, fails the call with `INVALID_RESULT` naming the field, instead of reaching user
 * code as a wrongly typed object. They check what the typed result promises (the fields a caller
 * reads without looking), not every field the schema defines: the server's schema conformance is
 * for `switchboard/testing` to prove.
 */

import { isPlainObject } from '../util/guards.js';
import { SwitchboardError } from './errors.js';

type Obj = Record<string, unknown>;

/** Throws `INVALID_RESULT` naming what is wrong with `result` of `method`. */
export type ResultCheck = (result: Obj, method: string) => void;

const fail = (method: string, problem: string): never => {
  throw new SwitchboardError('INVALID_RESULT', `The server's ${method} result ${problem}.`);
};

function objects(value: unknown, method: string, where: string): Obj[] {
  if (!Array.isArray(value)) return fail(method, `has no "${where}" array`);
  for (let i = 0; i < value.length; i++) {
    if (!isPlainObject(value[i])) fail(method, `has a "${where}[${i}]" that is not an object`);
  }
  return value as Obj[];
}

function stringField(item: Obj, key: string, method: string, where: string): void {
  if (typeof item[key] !== 'string') fail(method, `has a "${where}" without a string "${key}"`);
}

/** A list page: the items under `key`, each an object with the string fields named, and a string `nextCursor` if any. */
function listOf(key: string, ...fields: string[]): ResultCheck {
  return (result, method) => {
    const items = objects(result[key], method, key);
    for (let i = 0; i < items.length; i++) {
      for (const field of fields) stringField(items[i]!, field, method, `${key}[${i}]`);
    }
    const next = result.nextCursor;
    if (next !== undefined && typeof next !== 'string') fail(method, 'has a non-string nextCursor');
  };
}

function contentBlocks(value: unknown, method: string, where: string): void {
  const blocks = objects(value, method, where);
  for (let i = 0; i < blocks.length; i++) stringField(blocks[i]!, 'type', method, `${where}[${i}]`);
}

/** Every result is an object; the empty results (`ping`, `logging/setLevel`...) need nothing more. */
export const anyResult: ResultCheck = () => {};

export const RESULT_CHECKS = {
  listTools: listOf('tools', 'name'),
  listResources: listOf('resources', 'uri', 'name'),
  listResourceTemplates: listOf('resourceTemplates', 'uriTemplate', 'name'),
  listPrompts: listOf('prompts', 'name'),
  callTool(result: Obj, method: string) {
    // A task in place of the result: the tasks extension checks it (2026-07-28 `resultType: "task"`,
    // 2025-11-25 `{ task }`).
    if (result.resultType === 'task' || (result.content === undefined && isPlainObject(result.task))) return;
    contentBlocks(result.content, method, 'content');
    if (result.isError !== undefined && typeof result.isError !== 'boolean') {
      fail(method, 'has a non-boolean "isError"');
    }
  },
  readResource(result: Obj, method: string) {
    const contents = objects(result.contents, method, 'contents');
    for (let i = 0; i < contents.length; i++) {
      const item = contents[i]!;
      stringField(item, 'uri', method, `contents[${i}]`);
      if (typeof item.text !== 'string' && typeof item.blob !== 'string') {
        fail(method, `has a "contents[${i}]" with neither a string "text" nor a string "blob"`);
      }
    }
  },
  getPrompt(result: Obj, method: string) {
    const messages = objects(result.messages, method, 'messages');
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      if (message.role !== 'user' && message.role !== 'assistant') {
        fail(method, `has a "messages[${i}].role" that is neither "user" nor "assistant"`);
      }
      if (!isPlainObject(message.content) || typeof message.content.type !== 'string') {
        fail(method, `has a "messages[${i}].content" that is not a content block`);
      }
    }
  },
  complete(result: Obj, method: string) {
    const completion = result.completion;
    if (!isPlainObject(completion)) return fail(method, 'has no "completion" object');
    const values = completion.values;
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      fail(method, 'has a "completion.values" that is not an array of strings');
    }
  },
} satisfies Record<string, ResultCheck>;
