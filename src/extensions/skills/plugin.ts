/**
 * The Skills extension as a server plugin: it defines `skills/list`, `skills/get` and
 * `resources/directory/read` in the server's method registry, serves every skill file as a resource
 * (`registerResource`, so `resources/list`, `resources/read` and their change notifications are the
 * server's own), and declares the extension: `capabilities.extensions["io.modelcontextprotocol/skills"]`
 * with `directoryRead: true`, on 2026-07-28 and, as SEP-2640 negotiates it, in legacy `initialize`
 * too. Nothing of it is wired into the server: it turns on with the first registration.
 */
import { invalidParams, SwitchboardError } from '../../protocol/errors.js';
import type { Params } from '../../protocol/jsonrpc.js';
import type { MethodSpec } from '../../protocol/methods.js';
import type { ServerCapabilities } from '../../protocol/types.js';
import { paginate } from '../../server/pagination.js';
import type { ResourceHandle, ServerCore } from '../../server/server.js';
import type { ServedFile, SkillSet } from './skill-set.js';
import { DIRECTORY_READ, SKILLS_EXTENSION, SKILLS_GET, SKILLS_LIST, type SkillEntry } from './types.js';

/** Starts watching a source; calls `changed` when it may have changed; returns how to stop. */
export type SkillWatch = (changed: () => void) => () => void;

/** One registration (a directory of skills, or one skill): what it serves now. */
export interface SkillsRegistration {
  /** The `SKILL.md` URIs of its skills, sorted. */
  readonly skills: readonly string[];
  /** Reads the source again and serves what it holds now; a broken skill throws and changes nothing. */
  reload(): void;
  /** Stops serving its skills (and watching). */
  remove(): void;
}

export interface SkillsPlugin {
  add(load: () => SkillSet, watch?: SkillWatch): SkillsRegistration;
}

interface Held {
  set: SkillSet;
  handles: ResourceHandle[];
}

const always = () => true;

function checkUriParam(params: Params, method: string): void {
  if (typeof params.uri !== 'string')
    throw invalidParams(`Invalid params for '${method}': "uri" must be a string.`);
  if (params.cursor !== undefined && typeof params.cursor !== 'string') {
    throw invalidParams(`Invalid params for '${method}': "cursor" must be a string.`);
  }
}

/** The extension's methods: their revisions, caching and params checks (a gateway answers them too). */
export const SKILLS_METHOD_SPECS: Record<string, MethodSpec> = {
  [SKILLS_LIST]: {
    inRevision: always,
    cacheable: true,
    checkParams: (params, method) => {
      if (params.cursor !== undefined && typeof params.cursor !== 'string') {
        throw invalidParams(`Invalid params for '${method}': "cursor" must be a string.`);
      }
    },
  },
  [SKILLS_GET]: { inRevision: always, cacheable: true, checkParams: checkUriParam },
  [DIRECTORY_READ]: { inRevision: always, checkParams: checkUriParam },
};

export function installSkills(server: ServerCore): SkillsPlugin {
  const held: Held[] = [];
  const stops = new Set<() => void>();
  let enabled = false;

  const entries = async (): Promise<SkillEntry[]> => {
    const all = (await Promise.all(held.map((h) => h.set.entries()))).flat();
    return all.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  };

  /** One page of `items` (sorted by URI) under `key`, after `params.cursor`. */
  const pageOf = <T extends { uri: string }>(items: T[], key: string, params: Params) => {
    const page = paginate(
      items,
      items.map((item) => item.uri),
      params.cursor as string | undefined,
      server.pageSize,
    );
    return page.nextCursor === undefined
      ? { [key]: page.items }
      : { [key]: page.items, nextCursor: page.nextCursor };
  };

  const enable = (): void => {
    if (enabled) return;
    enabled = true;
    server.methods.define({
      ...SKILLS_METHOD_SPECS[SKILLS_LIST]!,
      method: SKILLS_LIST,
      cache: 'list',
      handler: async (params) => {
        return pageOf(await entries(), 'skills', params);
      },
    });
    server.methods.define({
      ...SKILLS_METHOD_SPECS[SKILLS_GET]!,
      method: SKILLS_GET,
      cache: 'list',
      handler: async (params) => {
        const uri = params.uri as string;
        const skill = (await entries()).find((e) => e.uri === uri);
        if (!skill) {
          throw invalidParams(
            `This server serves no skill at ${JSON.stringify(uri)}: skills/get takes the URI of a skill's SKILL.md (skill://<skill-path>/SKILL.md), as skills/list gives them.`,
          );
        }
        return { skill };
      },
    });
    server.methods.define({
      ...SKILLS_METHOD_SPECS[DIRECTORY_READ]!,
      method: DIRECTORY_READ,
      handler: (params) => {
        const uri = params.uri as string;
        const children = held.flatMap((h) => h.set.directory(uri) ?? []);
        const isDirectory = held.some((h) => h.set.directory(uri) !== undefined);
        if (!isDirectory) {
          throw invalidParams(
            `${JSON.stringify(uri)} is no directory of this server's skills: resources/directory/read takes a directory URI without a trailing slash (skill://<skill-path> or a folder in it).`,
          );
        }
        const unique = [...new Map(children.map((c) => [c.uri, c])).values()].sort((a, b) =>
          a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0,
        );
        return pageOf(unique, 'resources', params);
      },
    });
    // Skill files are resources: the extension requires the resources capability even with no skill.
    server.addCapabilities((caps: ServerCapabilities) => {
      caps.resources ??= { subscribe: true, listChanged: true };
    });
    server.declareExtension(SKILLS_EXTENSION, { directoryRead: true }, { legacy: true });
    server.onShutdown(async () => {
      for (const stop of stops) stop();
      stops.clear();
    });
  };

  const checkConflicts = (set: SkillSet, except: Held | undefined): void => {
    for (const other of held) {
      if (other === except) continue;
      for (const uri of set.files.keys()) {
        if (other.set.files.has(uri)) {
          throw new SwitchboardError(
            'CONFIG',
            `Two registrations serve ${uri}: give one of them a prefix (registerSkills(directory, { prefix: "team" })).`,
          );
        }
      }
    }
  };
  const serve = (set: SkillSet): ResourceHandle[] => {
    const frontmatter = new Map(set.skills.map((s) => [s.uri, s.frontmatter]));
    return [...set.files.values()].map((file) => register(server, file, frontmatter.get(file.uri)));
  };

  return {
    add(load, watch) {
      const first = load();
      enable();
      checkConflicts(first, undefined);
      const entry: Held = { set: first, handles: serve(first) };
      held.push(entry);
      let stop: (() => void) | undefined;
      const registration: SkillsRegistration = {
        get skills() {
          return entry.set.skills.map((s) => s.uri);
        },
        reload() {
          const next = load();
          const before = entry.set;
          checkConflicts(next, entry);
          for (const handle of entry.handles) handle.remove();
          entry.set = next;
          entry.handles = serve(next);
          // Subscribers of a file whose bytes changed hear of it (its URI stayed, so no list changed for it).
          for (const [uri, file] of next.files) {
            const old = before.files.get(uri);
            if (old && !sameBytes(old.bytes, file.bytes)) server.notifyResourceUpdated(uri);
          }
        },
        remove() {
          stop?.();
          const at = held.indexOf(entry);
          if (at === -1) return;
          held.splice(at, 1);
          for (const handle of entry.handles) handle.remove();
        },
      };
      if (watch) {
        stop = watch(() => {
          try {
            registration.reload();
          } catch (error) {
            // A skill broken while being edited: keep serving the last good set, and say why.
            server.reportError(error instanceof Error ? error : new Error(String(error)));
          }
        });
        const stopping = stop;
        stops.add(stopping);
        stop = () => {
          stops.delete(stopping);
          stopping();
        };
      }
      return registration;
    },
  };
}

function register(server: ServerCore, file: ServedFile, frontmatter: Record<string, unknown> | undefined) {
  const read = () => (file.text !== undefined ? file.text : file.bytes);
  const config = {
    mimeType: file.mimeType,
    size: file.bytes.byteLength,
    ...(frontmatter && typeof frontmatter.description === 'string'
      ? { description: frontmatter.description }
      : {}),
  };
  const name = frontmatter && typeof frontmatter.name === 'string' ? frontmatter.name : file.name;
  return server.registerResource(name, file.uri, config, read);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}
