/**
 * `switchboard add --print`: the entry each client wants, for a README: the snippet of its file
 * (JSON, or TOML for Codex), Cursor's install link and VS Code's `code --add-mcp` argument. The
 * command is left as given (a README is read on other machines) and secrets stay references.
 */
import { stringify as stringifyToml } from '@decimalturn/toml-patch';
import type { ClientInfo } from './clients.js';
import { type RenderOptions, renderEntry } from './entries.js';
import { FleetError } from './errors.js';
import type { ServerSpec } from './spec.js';

export function printEntries(
  clients: readonly ClientInfo[],
  name: string,
  spec: ServerSpec,
  options: RenderOptions,
): string {
  const parts: string[] = [];
  for (const client of clients) {
    let rendered: ReturnType<typeof renderEntry>;
    try {
      rendered = renderEntry(client, name, spec, options);
    } catch (error) {
      if (!(error instanceof FleetError)) throw error;
      parts.push(`${client.title} (${client.id}): cannot be written: ${error.message}\n`);
      continue;
    }
    const { entry, inputs, notes } = rendered;
    const file = client.path('user', { platform: 'linux', home: '~', env: {}, projectDir: '.' });
    const snippet =
      client.format === 'toml'
        ? stringifyToml({ [client.key]: { [name]: entry } }, { inlineTableStart: 2 }).replace(
            /^\[mcp_servers\]\n\n/,
            '',
          )
        : `${JSON.stringify({ ...(inputs.length > 0 ? { inputs } : {}), [client.key]: { [name]: entry } }, null, 2)}\n`;
    parts.push(
      `${client.title} (${client.id}), in ${file}:\n${notes.map((n) => `  ${n}\n`).join('')}${snippet}`,
    );
    if (client.id === 'cursor') {
      const config = Buffer.from(JSON.stringify(entry)).toString('base64');
      const query = `name=${encodeURIComponent(name)}&config=${encodeURIComponent(config)}`;
      parts.push(`Cursor's install link:\n  cursor://anysphere.cursor-deeplink/mcp/install?${query}\n`);
    }
    if (client.id === 'vscode') {
      const argument = JSON.stringify({ name, ...entry, ...(inputs.length > 0 ? { inputs } : {}) });
      parts.push(`VS Code's command line:\n  code --add-mcp '${argument.replace(/'/g, `'\\''`)}'\n`);
    }
  }
  return parts.join('\n');
}
