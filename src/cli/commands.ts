/**
 * The commands: what each needs on the command line, how it uses the connected client, and how it
 * prints. Usage is checked before any server is started.
 */
import type { Client } from '../extensions/client.js';
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import type { ServerCapabilities } from '../protocol/types.js';
import { promptArguments, toolArguments } from './arguments.js';
import type { CliOptions } from './invocation.js';
import {
  renderCallResult,
  renderPromptResult,
  renderPrompts,
  renderReadResult,
  renderResources,
  renderTools,
} from './render.js';
import { listSkills, readSkillFile, renderSkills } from './skills-command.js';
import { UsageError } from './usage-error.js';

export interface CommandContext {
  readonly client: Client;
  readonly options: CliOptions;
  readonly operands: readonly string[];
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Names what the command is doing now, for the failure message if it fails. */
  step(action: string): void;
}

export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** What goes after `switchboard <name>` (with a quoted target; the `--` form is implied). */
  readonly synopsis: string;
  /** The help text's body: what it does and examples. */
  readonly help: string;
  /** Throws a UsageError when the operands cannot be right. */
  checkOperands(operands: readonly string[]): void;
  /** Returns the exit code. */
  run(ctx: CommandContext): Promise<number>;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** Checks the number of operands; `first` names the required first one, if there is one. */
function operandCount(command: string, max: number, first?: string) {
  const min = first === undefined ? 0 : 1;
  return (operands: readonly string[]) => {
    if (operands.length < min) throw new UsageError(`Missing ${first}.`, command);
    if (operands.length > max) {
      throw new UsageError(
        `Unexpected argument${operands.length - max > 1 ? 's' : ''} ${operands
          .slice(max)
          .map((o) => JSON.stringify(o))
          .join(' ')}. ` +
          `If ${operands.length - max > 1 ? 'they belong' : 'it belongs'} to the server command, ` +
          'quote the whole command ("node server.js --flag") or put it after --.',
        command,
      );
    }
  };
}

/** Lists are walked to the end; a server without the capability simply has nothing to list. */
function offers(client: Client, capability: keyof ServerCapabilities): boolean {
  return client.serverCapabilities[capability] !== undefined;
}

const tools: Command = {
  name: 'tools',
  summary: "List the server's tools and their parameters",
  synopsis: 'tools <target>',
  help: `Lists every tool (all pages) with its title, description, parameters (type, required,
default) and hints such as read-only.

Example:
  switchboard tools "node server.js"`,
  checkOperands: operandCount('tools', 0),
  async run({ client, options, out, step }) {
    step('list tools');
    const list = offers(client, 'tools') ? (await client.listTools()).tools : [];
    out(options.json ? json({ tools: list }) : renderTools(list));
    return 0;
  },
};

const resources: Command = {
  name: 'resources',
  summary: "List the server's resources and resource templates",
  synopsis: 'resources <target>',
  help: `Lists every resource (URI, name, MIME type, size) and every resource template (RFC 6570
URI template). Read one with: switchboard read <target> <uri>.

Example:
  switchboard resources "node server.js"`,
  checkOperands: operandCount('resources', 0),
  async run({ client, options, out, step }) {
    let list: Awaited<ReturnType<Client['listResources']>>['resources'] = [];
    let templates: Awaited<ReturnType<Client['listResourceTemplates']>>['resourceTemplates'] = [];
    if (offers(client, 'resources')) {
      step('list resources');
      list = (await client.listResources()).resources;
      step('list resource templates');
      try {
        templates = (await client.listResourceTemplates()).resourceTemplates;
      } catch (error) {
        // Templates are optional within the resources capability; some servers do not route the method.
        if (!(error instanceof ProtocolError && error.code === ErrorCode.MethodNotFound)) throw error;
      }
    }
    out(
      options.json
        ? json({ resources: list, resourceTemplates: templates })
        : renderResources(list, templates),
    );
    return 0;
  },
};

const prompts: Command = {
  name: 'prompts',
  summary: "List the server's prompts and their arguments",
  synopsis: 'prompts <target>',
  help: `Lists every prompt with its title, description and arguments.

Example:
  switchboard prompts "node server.js"`,
  checkOperands: operandCount('prompts', 0),
  async run({ client, options, out, step }) {
    step('list prompts');
    const list = offers(client, 'prompts') ? (await client.listPrompts()).prompts : [];
    out(options.json ? json({ prompts: list }) : renderPrompts(list));
    return 0;
  },
};

const call: Command = {
  name: 'call',
  summary: 'Call a tool',
  synopsis: 'call <target> <tool> [key=value ...] [--args <json>]',
  help: `Calls a tool and prints its result: text as is, images and audio as one line with
their MIME type and size, resource links and embedded resources by URI, structured
content as indented JSON.

Arguments are key=value pairs, read with the tool's input schema: number, integer,
boolean and null parameters are converted; array and object parameters take JSON;
strings are taken as they are. A key the schema does not declare is an error. --args
takes all arguments as one JSON object (sent as is); key=value pairs override its keys.

A result with isError: true is printed on stderr and the exit code is 1.

Examples:
  switchboard call "node server.js" add a=2 b=3
  switchboard call "node server.js" search query="open issues" limit=5 tags='["bug"]'
  switchboard call "node server.js" search --args '{"query": "x", "filters": {"open": true}}'
  switchboard call add a=2 b=3 -- npx -y some-server`,
  checkOperands: operandCount('call', Number.POSITIVE_INFINITY, 'the name of the tool to call'),
  async run({ client, options, operands, out, err, step }) {
    const [name, ...pairs] = operands as [string, ...string[]];
    if (!offers(client, 'tools'))
      throw new Error('the server offers no tools (it declares no tools capability).');
    step('list tools');
    const { tools: list } = await client.listTools();
    step(`call tool ${JSON.stringify(name)}`);
    const tool = list.find((t) => t.name === name);
    if (!tool)
      throw new Error(`the server has no tool ${JSON.stringify(name)}. ${nameList('Its tools', list)}`);
    const args = toolArguments(tool, pairs, options.args);
    const result = await client.callTool(name, args);
    if (options.json) out(json(result));
    if (result.isError) {
      err(
        options.json
          ? `switchboard: tool ${JSON.stringify(name)} reported an error (isError: true).\n`
          : `switchboard: tool ${JSON.stringify(name)} reported an error:\n${renderCallResult(result)}`,
      );
      return 1;
    }
    if (!options.json) out(renderCallResult(result));
    return 0;
  },
};

const read: Command = {
  name: 'read',
  summary: 'Read a resource',
  synopsis: 'read <target> <uri>',
  help: `Reads a resource and prints its text. Binary contents are summarized (URI, MIME type,
size); --json prints them base64-encoded. Any URI a resource template matches works too. A
skill:// file of a listed skill is verified against the skill's entry (size, SHA-256 digest,
SKILL.md frontmatter) and refused if it does not match.

Examples:
  switchboard read "node server.js" file:///notes.txt
  switchboard read "node server.js" skill://git-workflow/SKILL.md`,
  checkOperands: operandCount('read', 1, 'the URI of the resource to read'),
  async run({ client, options, operands, out, step }) {
    const uri = operands[0]!;
    step(`read ${uri}`);
    const result = (await readSkillFile(client, uri)) ?? (await client.readResource(uri));
    out(options.json ? json(result) : renderReadResult(result));
    return 0;
  },
};

const prompt: Command = {
  name: 'prompt',
  summary: 'Get a prompt',
  synopsis: 'prompt <target> <name> [key=value ...] [--args <json>]',
  help: `Gets a prompt with the given arguments and prints its messages. Prompt arguments are
strings: values are taken as they are. --args takes them as one JSON object of strings.

Example:
  switchboard prompt "node server.js" review language=typescript`,
  checkOperands: operandCount('prompt', Number.POSITIVE_INFINITY, 'the name of the prompt to get'),
  async run({ client, options, operands, out, step }) {
    const [name, ...pairs] = operands as [string, ...string[]];
    if (!offers(client, 'prompts'))
      throw new Error('the server offers no prompts (it declares no prompts capability).');
    step('list prompts');
    const { prompts: list } = await client.listPrompts();
    step(`get prompt ${JSON.stringify(name)}`);
    const found = list.find((p) => p.name === name);
    if (!found)
      throw new Error(`the server has no prompt ${JSON.stringify(name)}. ${nameList('Its prompts', list)}`);
    const args = promptArguments(found, pairs, options.args);
    const result = await client.getPrompt(name, args);
    out(options.json ? json(result) : renderPromptResult(result));
    return 0;
  },
};

const skills: Command = {
  name: 'skills',
  summary: "List the server's Agent Skills (the Skills extension)",
  synopsis: 'skills <target>',
  help: `Lists every skill the server lists (skills/list, all pages): its name, the URI of its
SKILL.md, how many files it has, its description. --json prints the skills/list entries
(uri, frontmatter, resources with digests). Read one with: switchboard read <target> <uri>.

Example:
  switchboard skills "node server.js"`,
  checkOperands: operandCount('skills', 0),
  async run({ client, options, out, step }) {
    step('list skills');
    const list = await listSkills(client);
    out(options.json ? json({ skills: list }) : renderSkills(list));
    return 0;
  },
};

function nameList(what: string, items: readonly { name: string }[]): string {
  return items.length === 0 ? 'It lists none.' : `${what}: ${items.map((i) => i.name).join(', ')}.`;
}

export const COMMANDS: ReadonlyMap<string, Command> = new Map(
  [tools, resources, prompts, skills, call, read, prompt].map((c) => [c.name, c]),
);
