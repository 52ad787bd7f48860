/**
 * `Server`, as users import it: the framework (`ServerCore`) with the tasks extension plugged in.
 * Extensions sit above the framework: the framework offers extension points and knows no extension.
 */

import type { Implementation } from '../protocol/types.js';
import { ServerCore, type ServerCoreOptions } from '../server/server.js';
import { installSkills, type SkillsPlugin, type SkillsRegistration } from './skills/plugin.js';
import {
  type InlineSkill,
  registerOneSkill,
  registerSkillsDirectory,
  type SkillsOptions,
} from './skills/server.js';
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
  readonly #skills: SkillsPlugin;

  constructor(info: Implementation, options: ServerOptions = {}) {
    super(info, options);
    this.#tasks = installTasks(this, options.tasks);
    this.#skills = installSkills(this);
  }

  /**
   * Serves every Agent Skill under `directory` (the Skills extension, SEP-2640; see docs/skills.md):
   * each subdirectory holding a `SKILL.md` is a skill at `skill://<its path>/SKILL.md`, its files
   * resources, listed by `skills/list`, answered by `skills/get`, browsable with
   * `resources/directory/read`. Every `SKILL.md` is checked now: a broken one throws, naming the file
   * and the rule. Reads the file system (Node, Deno, Bun).
   */
  registerSkills(directory: string | URL, options?: SkillsOptions): SkillsRegistration {
    return registerSkillsDirectory(this.#skills, directory, options);
  }

  /** Serves one skill: a directory with its `SKILL.md` at the top, or its files from memory. */
  registerSkill(skill: string | URL | InlineSkill, options?: SkillsOptions): SkillsRegistration {
    return registerOneSkill(this.#skills, skill, options);
  }

  /** Where tasks are stored; undefined until tasks are on. */
  get taskStore(): TaskStore | undefined {
    return this.#tasks.store;
  }
}
