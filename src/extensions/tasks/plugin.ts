/**
 * The tasks extension as a server plugin. It registers the `tasks/*` methods, hooks `tools/call`
 * (a call that runs as a task answers with its handle at once), adds its capabilities, and fails
 * running tasks on shutdown and when their legacy session ends — all through the server's extension
 * points, so the server itself knows nothing of tasks.
 *
 * Tasks turn on with the `tasks` option, or when a tool that may run as a task is registered
 * (`execution.taskSupport` `optional` or `required`), with the defaults.
 */
import { type MethodSpec, methodSpec } from '../../protocol/methods.js';
import type { ServerCore } from '../../server/server.js';
import { ServerTasks, type TaskServerOptions } from './server.js';
import type { TaskStore } from './store.js';

const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/result', 'tasks/list'] as const;

/** What the server keeps of the plugin. */
export interface TasksPlugin {
  /** Where tasks are stored; undefined until tasks are on. */
  readonly store: TaskStore | undefined;
}

export function installTasks(server: ServerCore, options: TaskServerOptions | undefined): TasksPlugin {
  let service: ServerTasks | undefined;
  const enable = (): void => {
    if (service) return;
    const tasks = new ServerTasks(
      {
        notifications: server.notifications,
        services: server.services,
        pageSize: server.pageSize,
        reportError: (error) => server.reportError(error),
      },
      options,
    );
    service = tasks;
    for (const method of TASK_METHODS) {
      server.methods.define({
        ...(methodSpec(method) as MethodSpec),
        method,
        handler: (params, ctx) => tasks.handle(method, params, ctx),
      });
    }
    server.hookToolCalls({
      start: (entry, params, ctx) => tasks.start(entry, params, ctx),
      handOff: (entry, handoff, ctx) => tasks.handOff(entry, handoff, ctx),
    });
    server.addCapabilities((capabilities) => tasks.advertise(capabilities));
    server.onShutdown(() => tasks.close());
    server.onSessionClosed((sessionId) => tasks.sessionClosed(sessionId));
  };
  if (options) enable();
  server.onToolRegistered((config) => {
    const support = config.execution?.taskSupport;
    if (support === 'optional' || support === 'required') enable();
  });
  return {
    get store() {
      return service?.store;
    },
  };
}
