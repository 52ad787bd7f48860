/**
 * The ids of upstream tasks (the 2026-07-28 tasks extension) as the gateway shows them, so that a
 * `tasks/*` request finds its upstream by the id alone, on any node of a cluster, as names and URIs
 * do, and so that only the caller who made the task can reach it through the gateway:
 * `<server><separator><tag>.<upstream's id>`. A local (stdio) server's tasks live in the child
 * process of the node that made them, so their ids also name that node:
 * `<server>@<node><separator><tag>.<id>`.
 *
 * The tag binds the id to its caller: a truncated HMAC-SHA-256, under a key every node of a
 * cluster shares (see {@link TaskIdKeyring}), of the principal, the upstream, the node and the upstream's
 * id. The upstream sees every caller of the gateway as one; the tag is what keeps another principal
 * who learns the id (ids travel in logs, screenshots, shared tickets) from polling, answering or
 * cancelling the task.
 */
import { bytesToBase64Url } from '../util/base64.js';

/** A downstream task id read back: the upstream, the node for a local server's task, its own id. */
export interface TaskIdParts {
  readonly upstream: string;
  readonly node?: string;
  readonly id: string;
}

/** The tag's bytes: 128 bits of the MAC, as base64url (22 characters, never a `.`). */
const TAG_BYTES = 16;
const TAG = /^[A-Za-z0-9_-]{22}\./;
const TAG_LENGTH = 22;

/** The downstream id of `parts` with its `tag` (see {@link TaskIds.show}). */
export function formatTaskId(parts: TaskIdParts, tag: string, separator: string): string {
  const { upstream, node, id } = parts;
  return `${upstream}${node === undefined ? '' : `@${node}`}${separator}${tag}.${id}`;
}

/**
 * The parts and tag of a downstream task id, or undefined when it names no upstream `isUpstream`
 * knows or carries no tag (an id the gateway did not make). Every place the separator occurs is
 * tried, so an upstream whose name holds the separator is still found; the upstream's id is all
 * that follows the tag, whatever characters it holds.
 */
export function parseTaskId(
  shown: string,
  separator: string,
  isUpstream: (name: string) => boolean,
): { readonly parts: TaskIdParts; readonly tag: string } | undefined {
  for (let cut = shown.indexOf(separator, 1); cut !== -1; cut = shown.indexOf(separator, cut + 1)) {
    const head = shown.slice(0, cut);
    const rest = shown.slice(cut + separator.length);
    if (!TAG.test(rest) || rest.length === TAG_LENGTH + 1) continue;
    const tag = rest.slice(0, TAG_LENGTH);
    const id = rest.slice(TAG_LENGTH + 1);
    if (isUpstream(head)) return { parts: { upstream: head, id }, tag };
    const at = head.lastIndexOf('@');
    if (at > 0 && isUpstream(head.slice(0, at))) {
      return { parts: { upstream: head.slice(0, at), node: head.slice(at + 1), id }, tag };
    }
  }
  return undefined;
}

const encoder = new TextEncoder();
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
/** Names what the MAC is of, so it is never one made for something else under the same key. */
const DOMAIN = 'switchboard gateway task id v1';
/** Stands for "no node" in the MAC's input (no field's length: fields are shorter than 4 GiB). */
const ABSENT = 0xffffffff;

/**
 * What the tag is the MAC of: each field as its 4-byte length and its UTF-8 bytes, so no shift of
 * characters between fields (principal "a", upstream "bc" against "ab", "c") gives the same input.
 */
function macInput(principal: string, parts: TaskIdParts): Uint8Array {
  const fields = [DOMAIN, principal, parts.upstream, parts.node, parts.id].map((field) =>
    field === undefined ? undefined : encoder.encode(field),
  );
  const size = fields.reduce((sum, field) => sum + 4 + (field?.length ?? 0), 0);
  const input = new Uint8Array(size);
  const view = new DataView(input.buffer);
  let at = 0;
  for (const field of fields) {
    view.setUint32(at, field === undefined ? ABSENT : field.length);
    at += 4;
    if (field !== undefined) {
      input.set(field, at);
      at += field.length;
    }
  }
  return input;
}

/** Equal byte strings of one length, in time that does not depend on where they differ. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/**
 * The keys of a gateway's task id tags, newest first (never empty): an id is made under the first
 * and read back under any, so a key another node made (with `gateway.redis`, see
 * redis/task-id-key.ts) and a key this node made before both stay good.
 */
export interface TaskIdKeyring {
  keys(): readonly Uint8Array[];
  /**
   * An id was read back under none of the keys: another node may hold one this node has not read
   * yet. Resolves true when the keys changed (the id is then tried once more). The keyring limits
   * how often this reaches Redis, so a flood of made-up ids cannot.
   */
  missed?(): Promise<boolean>;
}

/**
 * Shows and reads back the task ids of one gateway. `secret` is the key of the tags: with
 * `gateway.redis` the keyring every node shares through Redis (so a task made through one node is
 * found through another, and after a restart), otherwise one random per process.
 */
export class TaskIds {
  readonly #keyring: TaskIdKeyring;
  /** Each key imported once; a keyring hands back the same bytes object for a key it keeps. */
  readonly #imported = new WeakMap<Uint8Array, Promise<HmacKey>>();

  constructor(
    secret: Uint8Array | TaskIdKeyring,
    private readonly separator: string,
  ) {
    this.#keyring = secret instanceof Uint8Array ? { keys: () => [secret] } : secret;
  }

  #import(secret: Uint8Array): Promise<HmacKey> {
    let key = this.#imported.get(secret);
    if (key === undefined) {
      key = crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      this.#imported.set(secret, key);
    }
    return key;
  }

  async #tag(secret: Uint8Array, principal: string, parts: TaskIdParts): Promise<Uint8Array> {
    const mac = await crypto.subtle.sign('HMAC', await this.#import(secret), macInput(principal, parts));
    return new Uint8Array(mac, 0, TAG_BYTES);
  }

  /** The id `principal` is shown for the task `parts` names, tagged under the newest key. */
  async show(principal: string, parts: TaskIdParts): Promise<string> {
    const newest = this.#keyring.keys()[0]!;
    return formatTaskId(parts, bytesToBase64Url(await this.#tag(newest, principal, parts)), this.separator);
  }

  /** Whether `tag` is the tag of `parts` for `principal` under any key held now. */
  async #known(tag: string, principal: string, parts: TaskIdParts): Promise<boolean> {
    const given = encoder.encode(tag);
    const tags = await Promise.all(this.#keyring.keys().map((secret) => this.#tag(secret, principal, parts)));
    // Every key compared, each in constant time: how long it takes says nothing of which matched.
    let found = false;
    for (const expected of tags)
      found = sameBytes(encoder.encode(bytesToBase64Url(expected)), given) || found;
    return found;
  }

  /**
   * The task `shown` names, if the gateway made that id for `principal` (under any of the keys);
   * undefined for any other id (another caller's, a changed one, one with no tag or naming no
   * upstream): all alike unknown.
   */
  async read(
    shown: string,
    principal: string,
    isUpstream: (name: string) => boolean,
  ): Promise<TaskIdParts | undefined> {
    const parsed = parseTaskId(shown, this.separator, isUpstream);
    if (parsed === undefined) return undefined;
    if (await this.#known(parsed.tag, principal, parsed.parts)) return parsed.parts;
    // Made under a key another node holds and this one has not read yet? Once more with the keys read again.
    if ((await this.#keyring.missed?.()) && (await this.#known(parsed.tag, principal, parsed.parts))) {
      return parsed.parts;
    }
    return undefined;
  }
}
