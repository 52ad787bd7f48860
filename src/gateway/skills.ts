/**
 * Agent Skills (SEP-2640) through the gateway. Every upstream that declares the extension has its
 * `skills/list` read on the catalog session (every page) whenever its resources are, each entry
 * shown with its URIs under `skill://<server>/` (names.ts: the upstream's name is the first segment
 * of the skill path, the SEP's server-chosen prefix), and the gateway answers:
 * - `skills/list`: every upstream's entries as one list, sorted by URI and paged with the gateway's
 *   own cursors (2026-07-28: the list cache hints of the gateway's server);
 * - `skills/get` and `resources/directory/read`: sent to the upstream the URI names, with its own
 *   URI, and the URIs of the answer mapped back (digests and frontmatter pass unchanged: the bytes
 *   of every file pass unchanged too, so a client verifies them as if it read the upstream).
 *
 * A skill is shown to a caller when its `SKILL.md` would be (the server's resource filters, so
 * `gateway.access` over its downstream URI) and, with `--lock`, while its content is what was pinned
 * (pins.ts). A hidden skill is unknown: absent from `skills/list`, -32602 from `skills/get`, and
 * its files and directories (those no deeper shown skill owns) unknown to reads and directory reads.
 */

import type { Client } from '../extensions/client.js';
import type { Server } from '../extensions/server.js';
import { SKILLS_METHOD_SPECS } from '../extensions/skills/plugin.js';
import {
  checkGetSkillResult,
  DIRECTORY_READ,
  SKILLS_EXTENSION,
  SKILLS_GET,
  SKILLS_LIST,
  type SkillEntry,
  type SkillsCapability,
  skillRoot,
} from '../extensions/skills/types.js';
import { ErrorCode, invalidParams, ProtocolError } from '../protocol/errors.js';
import type { Params } from '../protocol/jsonrpc.js';
import type { Resource, ServerCapabilities } from '../protocol/types.js';
import type { RequestContext } from '../server/context.js';
import { paginate } from '../server/pagination.js';
import { errorMessage, isPlainObject } from '../util/guards.js';
import type { Logger } from '../util/logger.js';
import type { Forwarding } from './forwarding.js';
import type { ToolPins } from './pins.js';
import type { Routes } from './routes.js';
import type { Upstream } from './upstream.js';

/** One skill as the gateway holds it: its entry as shown downstream, and whether its pin holds it back. */
interface Known {
  readonly upstream: Upstream;
  readonly entry: SkillEntry;
  readonly held: boolean;
}

/** The extension's settings of an upstream, when it declares the extension. */
export function skillsOf(caps: ServerCapabilities | undefined): SkillsCapability | undefined {
  const settings = caps?.extensions?.[SKILLS_EXTENSION];
  return isPlainObject(settings) ? (settings as SkillsCapability) : undefined;
}

export class GatewaySkills {
  /** Every upstream's skills, by the downstream URI of their root directory (`skill://files/git-workflow`). */
  private readonly byRoot = new Map<string, Known>();
  /** The shown entries (not held), sorted by URI: what `skills/list` pages. */
  private listed: SkillEntry[] = [];

  constructor(
    private readonly server: Server,
    private readonly routes: Routes,
    private readonly forwarding: Forwarding,
    private readonly pins: ToolPins | undefined,
    private readonly logger: Logger,
  ) {
    const define = (method: string, handler: (params: Params, ctx: RequestContext) => unknown) =>
      server.methods.define({ ...SKILLS_METHOD_SPECS[method]!, method, handler, cache: 'list' });
    define(SKILLS_LIST, (params, ctx) => this.list(params, ctx));
    define(SKILLS_GET, (params, ctx) => this.get(params.uri as string, ctx));
    server.methods.define({
      ...SKILLS_METHOD_SPECS[DIRECTORY_READ]!,
      method: DIRECTORY_READ,
      handler: (params, ctx) => this.directory(params, ctx),
    });
  }

  /** The extension as the gateway declares it: when an upstream does, `directoryRead` when one has it. */
  capability(known: readonly (ServerCapabilities | undefined)[]): SkillsCapability | undefined {
    const declared = known.map(skillsOf).filter((s) => s !== undefined);
    if (declared.length === 0) return undefined;
    return declared.some((s) => s.directoryRead === true) ? { directoryRead: true } : {};
  }

  /**
   * Reads an upstream's skills (every page; none when it does not declare the extension). A list
   * that fails (a malformed entry...) is reported and leaves what was shown (undefined): the
   * upstream's resources are shown all the same.
   */
  async read(upstream: Upstream, client: Client): Promise<SkillEntry[] | undefined> {
    if (!skillsOf(client.serverCapabilities)) return [];
    try {
      return (await client.listSkills()).skills;
    } catch (error) {
      this.logger.warn(`gateway: cannot list the skills of "${upstream.name}": ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** Shows `entries` (the upstream's, as it listed them) for `upstream`, replacing what it showed before. */
  apply(upstream: Upstream, entries: readonly SkillEntry[]): void {
    const before = JSON.stringify(this.listed);
    for (const [root, known] of this.byRoot) if (known.upstream === upstream) this.byRoot.delete(root);
    for (const original of entries) {
      const entry = this.shown(upstream, original);
      const root = skillRoot(entry.uri);
      if (root === undefined || this.routes.owner(entry.uri)?.namespace !== upstream.name) {
        // A server without a namespace whose skill path starts with another server's name.
        this.logger.warn(
          `gateway: skill ${JSON.stringify(original.uri)} of "${upstream.name}" is not shown: its URI would lead elsewhere.`,
        );
        continue;
      }
      this.byRoot.set(root, { upstream, entry, held: !this.admit(entry) });
    }
    this.listed = [...this.byRoot.values()]
      .filter((k) => !k.held)
      .map((k) => k.entry)
      .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    // Entries are no registry items: their change is told as the resources' (SEP-2640 has no skills list_changed).
    if (JSON.stringify(this.listed) !== before) this.server.resourcesChanged();
  }

  /** Takes an upstream's skills off the list. */
  remove(upstream: Upstream): void {
    this.apply(upstream, []);
  }

  /** Is `uri` (downstream) a file or directory of a skill held back by its pin? Its resource is then not mirrored. */
  held(uri: string): boolean {
    return this.owner(uri)?.held === true;
  }

  /**
   * Is `uri` (downstream) unknown to the caller of `ctx`: not visible as a resource, or inside a
   * skill that is held or whose `SKILL.md` the caller may not see (and no deeper skill it may)?
   */
  hides(uri: string, ctx: RequestContext): boolean {
    if (!this.server.resourceVisible({ uri, name: uri }, ctx)) return true;
    const owner = this.owner(uri);
    return owner !== undefined && !this.visible(owner, ctx);
  }

  // --- the methods ----------------------------------------------------------------------------------

  private list(params: Params, ctx: RequestContext): Record<string, unknown> {
    const entries = this.listed.filter((entry) => this.server.resourceVisible(asResource(entry), ctx));
    const page = paginate(
      entries,
      entries.map((e) => e.uri),
      params.cursor as string | undefined,
      this.server.pageSize,
    );
    return page.nextCursor === undefined
      ? { skills: page.items }
      : { skills: page.items, nextCursor: page.nextCursor };
  }

  private async get(uri: string, ctx: RequestContext): Promise<Record<string, unknown>> {
    const unknown = () =>
      invalidParams(
        `The gateway serves no skill at ${JSON.stringify(uri)}: skills/get takes the URI of a skill's SKILL.md as skills/list gives them (skill://<server>/<skill-path>/SKILL.md).`,
      );
    const target = this.target(uri);
    if (!target || skillRoot(uri) === undefined || this.hides(uri, ctx)) throw unknown();
    let result: Record<string, unknown>;
    try {
      result = (await this.forwarding.forwardAs(
        target.upstream,
        SKILLS_GET,
        { uri: target.uri },
        ctx,
      )) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof ProtocolError && error.code === ErrorCode.InvalidParams) throw unknown();
      throw error;
    }
    checkGetSkillResult(result, SKILLS_GET);
    const entry = this.shown(target.upstream, result.skill as SkillEntry);
    // A skill listed or not is pinned as one listed: a changed one is not handed out either.
    if (entry.uri !== uri || !this.admit(entry)) throw unknown();
    return { skill: entry };
  }

  private async directory(params: Params, ctx: RequestContext): Promise<Record<string, unknown>> {
    const uri = params.uri as string;
    const target = this.target(uri);
    if (!target || skillsOf(target.upstream.capabilities)?.directoryRead !== true || this.hides(uri, ctx)) {
      throw invalidParams(
        `${JSON.stringify(uri)} is no directory the gateway serves: resources/directory/read takes a skill's directory URI without a trailing slash (skill://<server>/<skill-path> or a folder in it).`,
      );
    }
    const upstreamParams: Params =
      params.cursor === undefined ? { uri: target.uri } : { uri: target.uri, cursor: params.cursor };
    const result = (await this.forwarding.forwardAs(
      target.upstream,
      DIRECTORY_READ,
      upstreamParams,
      ctx,
    )) as Record<string, unknown>;
    if (
      !Array.isArray(result.resources) ||
      !result.resources.every((r) => isPlainObject(r) && typeof r.uri === 'string')
    ) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Upstream "${target.upstream.name}" answered ${DIRECTORY_READ} without a resources array of resources with a uri.`,
      );
    }
    const resources = (result.resources as Resource[])
      .map((r) => ({ ...r, uri: this.routes.shownUri(target.upstream, r.uri) }))
      .filter((r) => !this.hides(r.uri, ctx));
    // The upstream's cursor goes down as it is: the next page's request names the directory, and so its upstream.
    return typeof result.nextCursor === 'string'
      ? { resources, nextCursor: result.nextCursor }
      : { resources };
  }

  // --- helpers ------------------------------------------------------------------------------------

  /** The upstream a downstream skill URI leads to (one that declares the extension) and its URI there. */
  private target(uri: string): { upstream: Upstream; uri: string } | undefined {
    if (typeof uri !== 'string') return undefined;
    const owner = this.routes.owner(uri);
    const upstream = owner && this.routes.upstreams.get(owner.namespace);
    if (!owner || !upstream || !skillsOf(upstream.capabilities)) return undefined;
    return { upstream, uri: owner.uri };
  }

  /** An upstream's entry as shown downstream: its URIs mapped, the rest as it is. */
  private shown(upstream: Upstream, entry: SkillEntry): SkillEntry {
    const map = (uri: string) => this.routes.shownUri(upstream, uri);
    return {
      ...entry,
      uri: map(entry.uri),
      resources: Array.isArray(entry.resources)
        ? entry.resources.map((r) => ({ ...r, uri: map(r.uri) }))
        : entry.resources,
    };
  }

  /** Whether the pins let `entry` be shown (always without `--lock`); a held one is reported. */
  private admit(entry: SkillEntry): boolean {
    if (!this.pins || this.pins.admitSkill(entry.uri, entry)) return true;
    this.logger.warn(
      `gateway: skill "${entry.uri}" is hidden: its content changed since it was pinned in ${this.pins.file}. ` +
        'Review it, then run: switchboard gateway approve --lock <lock file> <config>',
    );
    return false;
  }

  /** The deepest skill whose root is `uri` or holds it. */
  private owner(uri: string): Known | undefined {
    for (let at = uri.length; at > 0; at = uri.lastIndexOf('/', at - 1)) {
      const known = this.byRoot.get(uri.slice(0, at));
      if (known) return known;
    }
    return undefined;
  }

  private visible(known: Known, ctx: RequestContext): boolean {
    return !known.held && this.server.resourceVisible(asResource(known.entry), ctx);
  }
}

/** A skill's `SKILL.md` as the resource filters see it. */
function asResource(entry: SkillEntry): Resource {
  return { uri: entry.uri, name: entry.frontmatter.name };
}
