import { formatProblem, parseGatewayConfig } from 'switchboard/gateway';

// Every problem at once, each with its line and column and what to write instead.
const result = parseGatewayConfig(
  'mcp.json',
  `{
  "mcpServers": {
    "files": { "command": "npx", "args": "-y @modelcontextprotocol/server-filesystem" },
    "github": { "url": "https://api.example.com/mcp", "headers": { "Authorization": "Bearer \${GITHUB_TOKEN}" } },
    "search": { "comand": "search-server" }
  }
}`,
  { env: {} },
);
if (!result.ok) for (const problem of result.problems) console.log(formatProblem(problem));

// Output:
// mcp.json:3:42: "args" must be an array of strings, not string. Write "args": ["..."].
// mcp.json:4:93: The environment variable GITHUB_TOKEN is not set. Set GITHUB_TOKEN, or give a default: ${GITHUB_TOKEN:-value}.
// mcp.json:5:15: The server "search" has neither "command" nor "url". Add "command": "npx" (with "args") for a local server, or "url" for a remote one.
// mcp.json:5:17: Unknown key "comand" in the server "search". Did you mean "command"?
