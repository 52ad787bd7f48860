/** The `--help` texts. Kept next to nothing else so they read like the manual page they are. */
import { COMMANDS, type Command } from './commands.js';
import { DEFAULT_TIMEOUT_MS } from './invocation.js';

const TARGET = `Target:
  The MCP server to talk to: an http:// or https:// endpoint URL
  (http://127.0.0.1:7420/mcp), or a command line to run over stdio. A command
  line is either one quoted argument, split like a shell would but run without
  one ("node server.js --port 3"; no $VARS, globs, pipes or &&), or everything
  after -- taken word for word (-- npx -y some-server). A spawned server gets
  your environment and working directory.`;

const OPTIONS = `Options:
  --json            Print the raw result as JSON (for scripts)
  --args <json>     Arguments as one JSON object (call, prompt); key=value pairs
                    override its keys
  --protocol <rev>  Speak exactly this protocol revision, e.g. 2026-07-28 or 2025-06-18
  --legacy          Use the legacy initialize handshake (revisions up to 2025-11-25)
  --timeout <ms>    Time allowed for each request (default ${DEFAULT_TIMEOUT_MS})
  --verbose         Show the server's stderr as it runs, and the negotiated protocol
  --header <h>      Extra HTTP header "Name: value" (HTTP targets; repeatable)
  --bearer <token>  Send "Authorization: Bearer <token>" (HTTP targets)
  -h, --help        Show help; switchboard <command> --help for one command
  --version         Print the version

By default the protocol era is negotiated: server/discover (2026-07-28) first,
then the legacy initialize handshake if the server does not speak it.`;

const EXIT = `Exit status: 0 on success, 1 when the server, the connection or the tool failed,
2 when the command line is wrong.`;

export function generalHelp(): string {
  const width = Math.max(...[...COMMANDS.keys()].map((n) => n.length));
  const list = [...COMMANDS.values()].map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
  return `switchboard: talk to a Model Context Protocol server from the command line.

Usage:
  switchboard <command> [options] <target> [arguments]
  switchboard <command> [options] [arguments] -- <server command ...>

Commands:
${list}
  ${'console'.padEnd(width)}  Serve the web console to explore and debug servers (switchboard console --help)
  ${'gateway'.padEnd(width)}  Serve many MCP servers behind one endpoint (switchboard gateway --help)
  ${'check'.padEnd(width)}  Score a server's protocol compliance (switchboard check --help)
  ${'test'.padEnd(width)}  Run *.mcptest.yaml test files, or generate them (switchboard test --help)
  ${'add'.padEnd(width)}  Put a server into MCP clients' config files (switchboard add --help)
  ${'remove'.padEnd(width)}  Take a server out of MCP clients' config files
  ${'list'.padEnd(width)}  Show which server is in which client, and which would not start
  ${'report'.padEnd(width)}  Scores over time from a check --config --history file
  ${'login'.padEnd(width)}  Sign in to a protected HTTP server (switchboard login --help)
  ${'logout'.padEnd(width)}  Forget the tokens for a server

${TARGET}

${OPTIONS}

${EXIT}
`;
}

export function commandHelp(command: Command): string {
  const dashed = `${command.synopsis.replace(' <target>', '')} -- <server command ...>`;
  return `Usage:
  switchboard ${command.synopsis}
  switchboard ${dashed}

${command.help}

${TARGET}

${OPTIONS}

${EXIT}
`;
}
