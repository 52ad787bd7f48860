/**
 * How deep a JSON message may nest. Parsing is not the problem (V8's parser is iterative); whatever
 * walks the value afterwards is: serializing, digesting, validating, copying all recurse, and a value
 * nested 20 000 deep ends as "Maximum call stack size exceeded" in the middle of one of them. So a
 * message deeper than {@link MAX_JSON_DEPTH} is refused where it arrives, naming the limit.
 */

/** Deepest nesting of objects and arrays accepted in one message (the message itself is level 1). */
export const MAX_JSON_DEPTH = 1000;

/**
 * Whether `value` nests objects or arrays more than `limit` levels deep. Linear in the number of
 * objects and arrays, and it stops at the first level too deep. Every message passes here, and
 * almost all are a few levels deep: the first {@link SHALLOW} levels are walked by recursion, which
 * allocates nothing; below them an explicit stack takes over, so no message can deepen the call stack.
 */
export function exceedsDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return shallowExceeds(value, 1, limit);
}

/** Levels walked by recursion before the explicit stack takes over. */
const SHALLOW = 32;

function shallowExceeds(node: object, depth: number, limit: number): boolean {
  if (depth > limit) return true;
  if (depth >= SHALLOW) return deepExceeds(node, depth, limit);
  if (Array.isArray(node)) {
    for (const child of node) {
      if (typeof child === 'object' && child !== null && shallowExceeds(child, depth + 1, limit)) return true;
    }
    return false;
  }
  for (const key in node) {
    const child = (node as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && shallowExceeds(child, depth + 1, limit)) return true;
  }
  return false;
}

/** The same walk with an explicit stack, from `root` at `rootDepth`. */
function deepExceeds(root: object, rootDepth: number, limit: number): boolean {
  const nodes: object[] = [root];
  const depths: number[] = [rootDepth];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    if (Array.isArray(node)) {
      for (const child of node) {
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in node) {
        const child = (node as Record<string, unknown>)[key];
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/** Whether JSON text of this length can nest deeper than the limit at all (each level takes 2 characters). */
export const mayExceedDepth = (textLength: number, limit: number = MAX_JSON_DEPTH): boolean =>
  textLength > 2 * limit;

/**
 * Checks an outgoing part of a message (params, a result: level 2 of the message) once it is
 * serialized into a frame of `frameLength` characters, instead of walking every message for its
 * depth first: only JSON long enough to nest deeper than the limit is walked. Throws the RangeError
 * naming the limit. A value nested deep enough to overflow JSON.stringify's stack (Node 20-24
 * recurse; Node 26 does not) never gets a frame: see {@link tooDeepToSerialize}.
 */
export function checkSentDepth(value: unknown, frameLength: number, what: string): void {
  if (sentMayBeTooDeep(frameLength) && exceedsDepth(value, MAX_JSON_DEPTH - 1))
    throw new RangeError(tooDeepMessage(what));
}

/** Whether {@link checkSentDepth} would walk the part of a frame this long (to skip making it when not). */
export const sentMayBeTooDeep = (frameLength: number): boolean =>
  mayExceedDepth(frameLength, MAX_JSON_DEPTH - 1);

/** What serializing `value` threw, as the error naming the limit when that is why. */
export function tooDeepToSerialize(error: unknown, value: unknown, what: string): unknown {
  return error instanceof RangeError && exceedsDepth(value, MAX_JSON_DEPTH - 1)
    ? new RangeError(tooDeepMessage(what))
    : error;
}

/** The sentence that names the limit, for the error that refuses such a message. */
export const tooDeepMessage = (what: string): string =>
  `${what} is nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays, more than this implementation accepts; send a flatter structure.`;
