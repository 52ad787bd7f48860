/**
 * What the conformance client does in each client scenario of the suite. The scenario's mock server
 * checks the traffic; a scenario here only has to make the calls the scenario watches for.
 */
import { type Client, SwitchboardError, type Tool } from 'switchboard';
import { prefilled } from './answers.js';

export type Scenario = (client: Client, context: ScenarioContext) => Promise<void>;

/** `MCP_CONFORMANCE_CONTEXT`: extra data some scenarios hand the client. */
export interface ScenarioContext {
  readonly toolCalls?: readonly { name: string; arguments?: Record<string, unknown> }[];
  readonly [key: string]: unknown;
}

/** Arguments that satisfy a tool's input schema's required properties. */
function argumentsFor(tool: Tool): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, object>; required?: string[] };
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) args[name] = prefilled(schema.properties?.[name] ?? {});
  return args;
}

/** Lists tools and calls each one (a client keeps only the tools it accepts: invalid ones are gone). */
async function callEveryTool(client: Client): Promise<void> {
  for (const tool of (await client.listTools()).tools) await client.callTool(tool.name, argumentsFor(tool));
}

/** Every list and every item the server offers: tools, resources, prompts. */
async function exerciseEverything(client: Client): Promise<void> {
  const offers = client.serverCapabilities;
  if (offers.tools) await callEveryTool(client);
  if (offers.resources) {
    for (const resource of (await client.listResources()).resources) await client.readResource(resource.uri);
  }
  if (!offers.prompts) return;
  for (const prompt of (await client.listPrompts()).prompts) {
    const args: Record<string, string> = {};
    for (const argument of prompt.arguments ?? []) if (argument.required) args[argument.name] = 'test';
    await client.getPrompt(prompt.name, args);
  }
}

/**
 * A skills host (SEP-2640) loading every skill it lists: its SKILL.md is read verified against the
 * entry (digest, size, frontmatter); a skill that fails is not loaded and nothing more of it is
 * read. A loaded skill's supporting files are then read, as a model acting on it would, each
 * verified too. The listing alone builds the registry: nothing is read before a skill is loaded.
 */
async function loadEverySkill(client: Client): Promise<void> {
  for (const skill of (await client.listSkills()).skills) {
    try {
      await client.readSkillFile(skill.uri);
    } catch (error) {
      if (!(error instanceof SwitchboardError && error.code === 'INVALID_RESULT')) throw error;
      console.error(`Not loading ${skill.uri}: ${error.message}`);
      continue;
    }
    if (skill.resources === 'dynamic') continue;
    for (const file of skill.resources) if (file.uri !== skill.uri) await client.readSkillFile(file.uri);
  }
}

const listTools = async (client: Client) => {
  await client.listTools();
};

export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  initialize: listTools,
  // Every auth/* scenario: list the tools and call one (the step-up scenarios need both).
  auth: async (client) => {
    const { tools } = await client.listTools();
    if (tools[0]) await client.callTool(tools[0].name, argumentsFor(tools[0]));
  },
  tools_call: async (client) => {
    await client.listTools();
    await client.callTool('add_numbers', { a: 5, b: 3 });
  },
  'elicitation-sep1034-client-defaults': async (client) => {
    await client.listTools();
    await client.callTool('test_client_elicitation_defaults', {});
  },
  'sse-retry': async (client) => {
    await client.listTools();
    await client.callTool('test_reconnection', {});
  },
  'request-metadata': exerciseEverything,
  'sep-2322-client-request-state': async (client) => {
    await client.listTools();
    await client.callTool('test_mrtr_echo_state', {});
    await client.callTool('test_mrtr_unrelated', {});
    await client.callTool('test_mrtr_no_state', {});
    await client.callTool('test_mrtr_no_result_type', {});
  },
  'http-standard-headers': exerciseEverything,
  'http-custom-headers': async (client, context) => {
    await client.listTools(); // teaches the channel which arguments go into Mcp-Param-* headers
    for (const call of context.toolCalls ?? []) await client.callTool(call.name, call.arguments ?? {});
  },
  'http-invalid-tool-headers': callEveryTool,
  'json-schema-ref-no-deref': listTools,
  'json-schema-2020-12-preservation': async (client) => {
    const { tools } = await client.listTools();
    const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
    if (!focal) throw new Error('The server did not list json_schema_2020_12_tool.');
    await client.callTool('json_schema_echo', { schema: focal.inputSchema });
  },
  // The host builds its skill registry from the listing: no skill is loaded, so no file is read.
  'sep-2640-client-no-prefetch': async (client) => {
    await client.listSkills();
  },
  'sep-2640-client-verify-digest': loadEverySkill,
  'sep-2640-client-verify-size': loadEverySkill,
  'sep-2640-client-verify-frontmatter': loadEverySkill,
};
