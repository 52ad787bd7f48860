/**
 * `Server`, as users import it: the framework (`ServerCore`) with the tasks extension plugged in.
 * Extensions sit above the framework: the framework offers extension points and knows no extension.
 */

import type { Implementation } from '../protocol/types.js';
import { ServerCore, type ServerCoreOptions } from '../server/server.js';
import { installTasks, type TasksPlugin } from './tasks/plugin.js';
import type { TaskServerOptions } from './tasks/server.js';
import type { TaskStore } from './tasks/store.js';

export interface ServerOptions extends ServerCoreOptions {
  /**
   * Tasks (the 2026-07-28 extension and the 2025-11-25 experimental form): where they are stored,
   * how long they live, the poll interval. Registering a tool whose `execution.taskSupport` is
   * `optional` or `required` turns tasks on with the defaults; see docs/tasks.md.
   */
  tasks?: TaskServerOptions;
}

export class Server extends ServerCore {
  readonly #tasks: TasksPlugin;

  constructor(info: Implementation, options: ServerOptions = {}) {
    super(info, options);
    this.#tasks = installTasks(this, options.tasks);
  }

  /** Where tasks are stored; undefined until tasks are on. */
  get taskStore(): TaskStore | undefined {
    return this.#tasks.store;
  }
}
