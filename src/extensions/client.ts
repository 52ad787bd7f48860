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
import type { CallToolResult, Implementation, ListToolsResult, Tool } from '../protocol/types.js';
import { isPlainObject } from '../util/guards.js';
import { toolsForModel } from './apps.js';
import { ClientTask, type TaskCallOptions, type TaskClientHost } from './tasks/client.js';
import { decodeTask, TASKS_EXTENSION, type TaskDetails, type TaskInfo } from './tasks/types.js';

export interface ClientOptions extends ClientCoreOptions {
  /**
   * 2026-07-28: declare the tasks extension (`io.modelcontextprotocol/tasks`) on every request, so
   * the server may answer a tool call with a task. `callTool` then follows such a task to its end
   * transparently; `callToolAsTask` needs it. (2025-11-25 tasks need no declaration.)
   */
  tasks?: boolean;
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
  /** Tools whose last listing said `execution.taskSupport: "required"` (2025-11-25 calls them as tasks). */
  readonly #taskOnlyTools = new Set<string>();
  #taskHost: TaskClientHost | undefined;

  constructor(info: Implementation, options: ClientOptions = {}) {
    super(info, options);
    this.#tasks = options.tasks === true;
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

  // --- the core's hooks ----------------------------------------------------------------------

  protected override extendCapabilities(declared: Record<string, unknown>): void {
    if (this.#tasks) declared.extensions = { [TASKS_EXTENSION]: {} };
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
  ): Promise<CallToolResult> {
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
        return this.checkToolResult(name, result as unknown as CallToolResult);
      },
    };
    return this.#taskHost;
  }
}
