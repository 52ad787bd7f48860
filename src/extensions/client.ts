/**
 * `Client`, as users import it: the client (`ClientCore`) with the tasks extension (task-augmented
 * tool calls followed to their end, `callToolAsTask`, `tasks/*`) and MCP Apps (`listTools({ forModel })`)
 * plugged in through the core's protected hooks. Extensions sit above the client: it knows none.
 */
import { type CallOptions, ClientCore, type ClientCoreOptions, type ListOptions } from '../client/client.js';
import { SwitchboardError } from '../protocol/errors.js';
import type { Params } from '../protocol/jsonrpc.js';
import { RESULT_CHECKS } from '../protocol/results.js';
import { featuresOf } from '../protocol/revisions.js';
import type { CallToolResult, Implementation, ListToolsResult, Resource, Tool } from '../protocol/types.js';
import { isPlainObject } from '../util/guards.js';
import { toolsForModel } from './apps.js';
import { entryFor, type VerifiedSkillFile, verifySkillFile } from './skills/client.js';
import {
  checkGetSkillResult,
  checkListSkillsResult,
  DIRECTORY_READ,
  SKILLS_EXTENSION,
  SKILLS_GET,
  SKILLS_LIST,
  type SkillEntry,
  type SkillsCapability,
} from './skills/types.js';
import { ClientTask, type TaskCallOptions, type TaskClientHost } from './tasks/client.js';
import { decodeTask, TASKS_EXTENSION, type TaskDetails, type TaskInfo } from './tasks/types.js';

export interface ClientOptions extends ClientCoreOptions {
  /**
   * 2026-07-28: declare the tasks extension (`io.modelcontextprotocol/tasks`) on every request, so
   * the server may answer a tool call with a task. `callTool` then follows such a task to its end
   * transparently; `callToolAsTask` needs it. (2025-11-25 tasks need no declaration.)
   */
  tasks?: boolean;
  /**
   * Declare the Skills extension (`io.modelcontextprotocol/skills`) in the capabilities: on every
   * 2026-07-28 request and in legacy `initialize`. `listSkills` and the rest work without it; they
   * need the server's declaration.
   */
  skills?: boolean;
}

export interface ListToolsOptions extends ListOptions {
  /**
   * Only the tools a model may see: drops MCP Apps tools whose `_meta.ui.visibility` leaves out
   * `"model"` (app-only tools, which a host MUST NOT show its agent). See `toolsForModel`.
   */
  forModel?: boolean;
}

export class Client extends ClientCore {
  readonly #tasks: boolean;
  readonly #skills: boolean;
  /** The skill entries this connection was given (`skills/list`, `skills/get`), by SKILL.md URI. */
  readonly #skillEntries = new Map<string, SkillEntry>();
  /** Tools whose last listing said `execution.taskSupport: "required"` (2025-11-25 calls them as tasks). */
  readonly #taskOnlyTools = new Set<string>();
  #taskHost: TaskClientHost | undefined;

  constructor(info: Implementation, options: ClientOptions = {}) {
    super(info, options);
    this.#tasks = options.tasks === true;
    this.#skills = options.skills === true;
  }

  override async listTools(options: ListToolsOptions = {}): Promise<ListToolsResult> {
    const { forModel, ...listOptions } = options;
    const result = await super.listTools(listOptions);
    return forModel ? { ...result, tools: toolsForModel(result.tools) } : result;
  }

  // --- tasks ---------------------------------------------------------------------------------

  /**
   * Calls a tool as a task and returns its handle at once (see docs/tasks.md). On 2026-07-28 the
   * server decides: it answers with a task, or with the result (the handle then holds it); the
   * client must declare the extension (`tasks: true`). On 2025-11-25 the call asks for a task with
   * `params.task` when the server offers task-augmented tool calls. Older servers simply answer.
   */
  async callToolAsTask(
    name: string,
    args?: Record<string, unknown>,
    options: TaskCallOptions = {},
  ): Promise<ClientTask> {
    const { ttlMs, ...call } = options;
    const params: Params = args === undefined ? { name } : { name, arguments: args };
    if (this.era === 'modern' && !this.tasksDeclared) {
      throw new SwitchboardError(
        'CONFIG',
        'callToolAsTask() on protocol 2026-07-28 needs the tasks extension declared: new Client(info, { tasks: true }).',
      );
    }
    if (this.legacyTasks) params.task = ttlMs === undefined ? {} : { ttl: ttlMs };
    const result = await this.call('tools/call', params, call);
    return this.toolTask(name, params, result);
  }

  /** A handle on a task created earlier (its id kept across a restart, say). */
  task(taskId: string): ClientTask {
    return new ClientTask(this.taskHost, { legacy: this.era === 'legacy', taskId });
  }

  /** The task's state (`tasks/get`). */
  async getTask(taskId: string, options: CallOptions = {}): Promise<TaskDetails> {
    return this.task(taskId).refresh(options);
  }

  /** Asks the server to cancel the task (`tasks/cancel`). */
  async cancelTask(taskId: string, options: CallOptions = {}): Promise<void> {
    await this.task(taskId).cancel(options);
  }

  /**
   * The tasks this client created on the connection (2025-11-25 `tasks/list`, every page unless a
   * `cursor` or `singlePage` is given). The 2026-07-28 extension has no list: keep the ids.
   */
  async listTasks(options: ListOptions = {}): Promise<{ tasks: TaskInfo[]; nextCursor?: string }> {
    if (this.era === 'modern') {
      throw new SwitchboardError(
        'CAPABILITY_MISSING',
        'tasks/list exists only in protocol 2025-11-25; the 2026-07-28 tasks extension has no list, so keep the ids of the tasks you create.',
      );
    }
    const page = await this.list('tasks/list', 'tasks', options);
    const tasks = page.tasks.map((t) => decodeTask(t, true, 'tasks/list'));
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  }

  // --- skills ---------------------------------------------------------------------------------

  /**
   * Every skill the server lists (`skills/list`, every page unless a `cursor` or `singlePage` is
   * given). A listing may be partial: `getSkill` answers for unlisted skills too. The entries are
   * held for {@link readSkillFile}.
   */
  async listSkills(options: ListOptions = {}): Promise<{ skills: SkillEntry[]; nextCursor?: string }> {
    this.skillsCapability(SKILLS_LIST);
    const result = await this.list(SKILLS_LIST, 'skills', options);
    checkListSkillsResult(result, SKILLS_LIST);
    const skills = result.skills as SkillEntry[];
    for (const entry of skills) this.#skillEntries.set(entry.uri, entry);
    return result.nextCursor === undefined ? { skills } : { skills, nextCursor: result.nextCursor };
  }

  /** The entry of the skill whose `SKILL.md` is at `uri`, listed or not (`skills/get`); held for {@link readSkillFile}. */
  async getSkill(uri: string, options: CallOptions = {}): Promise<SkillEntry> {
    this.skillsCapability(SKILLS_GET);
    const result = await this.call(SKILLS_GET, { uri }, options);
    checkGetSkillResult(result, SKILLS_GET);
    const entry = result.skill as SkillEntry;
    this.#skillEntries.set(entry.uri, entry);
    return entry;
  }

  /**
   * The direct children of a directory resource (`resources/directory/read`, every page unless a
   * `cursor` or `singlePage` is given): files, and subdirectories as `inode/directory` resources.
   * Only for a server that declares `directoryRead`.
   */
  async readDirectory(
    uri: string,
    options: ListOptions = {},
  ): Promise<{ resources: Resource[]; nextCursor?: string }> {
    const declared = this.skillsCapability(DIRECTORY_READ);
    if (declared.directoryRead !== true) {
      throw new SwitchboardError(
        'CAPABILITY_MISSING',
        `The server does not declare directoryRead in its ${SKILLS_EXTENSION} extension, so resources/directory/read must not be called.`,
      );
    }
    const { cursor, singlePage, ...call } = options;
    const resources: Resource[] = [];
    let next = cursor;
    for (let pages = 0; ; pages++) {
      if (pages === (this.options.maxPages ?? 100)) {
        throw new SwitchboardError(
          'PAGINATION_LIMIT',
          `'${DIRECTORY_READ}' returned too many pages; page with { cursor }.`,
        );
      }
      const page = await this.call(
        DIRECTORY_READ,
        next === undefined ? { uri } : { uri, cursor: next },
        call,
      );
      if (!Array.isArray(page.resources)) {
        throw new SwitchboardError(
          'INVALID_RESULT',
          `The server's ${DIRECTORY_READ} result has no resources array.`,
        );
      }
      resources.push(...(page.resources as Resource[]));
      next = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
      if (next === undefined || singlePage || cursor !== undefined) {
        return next === undefined ? { resources } : { resources, nextCursor: next };
      }
    }
  }

  /**
   * Reads a skill's file and verifies it against the entry this client holds for its skill (from
   * `listSkills` or `getSkill`; a `SKILL.md` nobody listed is looked up with `getSkill` first):
   * listed there, its size and SHA-256 digest as the entry says, a `SKILL.md`'s frontmatter equal to
   * the entry's. A mismatch throws `INVALID_RESULT`: call `getSkill` to refresh, and read again.
   */
  async readSkillFile(uri: string, options: CallOptions = {}): Promise<VerifiedSkillFile> {
    let entry = entryFor(this.#skillEntries.values(), uri);
    if (!entry && uri.endsWith('/SKILL.md')) entry = await this.getSkill(uri, options);
    if (!entry) {
      throw new SwitchboardError(
        'CONFIG',
        `No skill entry this client holds lists ${uri}: call listSkills() or getSkill(<its skill's SKILL.md URI>) first (a host reads only the files an entry lists).`,
      );
    }
    return verifySkillFile(entry, uri, await this.readResource(uri, options));
  }

  /** The server's settings of the Skills extension; throws when it does not declare it. */
  private skillsCapability(method: string): SkillsCapability {
    const declared = this.serverCapabilities.extensions?.[SKILLS_EXTENSION];
    if (!isPlainObject(declared)) {
      throw new SwitchboardError(
        'CAPABILITY_MISSING',
        `The server does not declare the ${SKILLS_EXTENSION} extension, so ${method} must not be called; its skill:// resources, if any, are ordinary resources (listResources, readResource).`,
      );
    }
    return declared as SkillsCapability;
  }

  // --- the core's hooks ----------------------------------------------------------------------

  protected override extendCapabilities(declared: Record<string, unknown>): void {
    const extensions: Record<string, unknown> = {};
    if (this.#tasks) extensions[TASKS_EXTENSION] = {};
    if (this.#skills) extensions[SKILLS_EXTENSION] = {};
    if (Object.keys(extensions).length > 0) declared.extensions = extensions;
  }

  /** The tasks extension's answer, which only a tool call that declared the extension may get. */
  protected override acceptsResultType(method: string, type: unknown): boolean {
    return type === 'task' && method === 'tools/call' && this.tasksDeclared;
  }

  /** 2025-11-25: a tool listed as running only as a task is called as one. */
  protected override prepareToolCall(name: string, params: Params): void {
    if (this.legacyTasks && this.#taskOnlyTools.has(name)) params.task = {};
  }

  /** A task in place of the result is followed to its end. */
  protected override finishToolCall(
    name: string,
    params: Params,
    result: Record<string, unknown>,
    options: CallOptions,
  ): CallToolResult | Promise<CallToolResult> {
    if (result.resultType === 'task' || (params.task !== undefined && isPlainObject(result.task))) {
      const task = this.toolTask(name, params, result);
      return task.result({ signal: options.signal, timeoutMs: options.timeoutMs });
    }
    return super.finishToolCall(name, params, result, options);
  }

  protected override toolsListed(tools: readonly Tool[]): void {
    for (const tool of tools) {
      if (tool.execution?.taskSupport === 'required') this.#taskOnlyTools.add(tool.name);
      else this.#taskOnlyTools.delete(tool.name);
    }
  }

  protected override connectionReset(): void {
    this.#taskOnlyTools.clear();
    this.#skillEntries.clear();
  }

  // --- task plumbing -------------------------------------------------------------------------

  /** Whether this client declares the 2026-07-28 tasks extension. */
  private get tasksDeclared(): boolean {
    return this.declaredCapabilities().extensions?.[TASKS_EXTENSION] !== undefined;
  }

  /** Whether this connection has 2025-11-25 task-augmented tool calls. */
  private get legacyTasks(): boolean {
    const requests = this.serverCapabilities.tasks?.requests as { tools?: { call?: unknown } } | undefined;
    return this.revision === '2025-11-25' && isPlainObject(requests?.tools?.call);
  }

  /** The handle for what a tools/call answered: a task (either form), or the result itself. */
  private toolTask(name: string, params: Params, result: Record<string, unknown>): ClientTask {
    const legacy = this.era === 'legacy';
    const call = { name, params };
    if (result.resultType === 'task') {
      return new ClientTask(this.taskHost, { legacy, call, task: decodeTask(result, false, 'tools/call') });
    }
    if (legacy && params.task !== undefined && isPlainObject(result.task)) {
      return new ClientTask(this.taskHost, {
        legacy,
        call,
        task: decodeTask(result.task, true, 'tools/call'),
      });
    }
    return new ClientTask(this.taskHost, { legacy, call, result });
  }

  private get taskHost(): TaskClientHost {
    this.#taskHost ??= {
      revision: () => this.revision,
      request: (method, params, options) => this.call(method, params, options),
      fulfil: (inputRequests, ctx) => this.inputs.fulfil(inputRequests, ctx, featuresOf(this.revision)),
      listen: (filter, handlers) => this.listen(filter, handlers),
      on: (method, listener) => this.on(method, (params) => listener(params)),
      // A task's outcome arrives inside a task, not as a tools/call result: its shape is checked here.
      checkToolResult: (name, result) => {
        RESULT_CHECKS.callTool(result, 'tools/call');
        return Promise.resolve(this.checkToolResult(name, result as unknown as CallToolResult));
      },
    };
    return this.#taskHost;
  }
}
