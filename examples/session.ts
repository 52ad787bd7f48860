/**
 * A client session against the example server, start to finish: spawn it over stdio, let the client
 * negotiate the protocol era, list tools, call one, read a resource, and close (which stops the child).
 * `npm start` runs the same transcript (`runSession`) over HTTP.
 *
 *   node build/examples/session.js
 */
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, type ContentBlock } from 'switchboard';
import { StdioClientChannel } from 'switchboard/stdio';

const serverScript = fileURLToPath(new URL('./server.js', import.meta.url));

/** One line per content block, so the transcript stays readable whatever the tool returned. */
function describe(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${block.data.length} base64 chars]`;
    case 'resource_link':
      return `[link ${block.uri}]`;
    case 'resource':
      return `[resource ${block.resource.uri}]`;
  }
}

/** The transcript: what the server is, its tools, three calls and a read. */
export async function runSession(client: Client, say: (line: string) => void): Promise<void> {
  say(`connected to ${client.serverInfo?.title ?? client.serverInfo?.name ?? 'an unnamed server'}`);
  say(`negotiated protocol ${client.revision} (${client.era} era)`);
  if (client.instructions) say(`instructions: ${client.instructions}`);

  const { tools } = await client.listTools();
  say(`\ntools (${tools.length}):`);
  for (const tool of tools) say(`  ${tool.name.padEnd(12)} ${tool.description ?? ''}`);

  say('\n> add { a: 2, b: 40 }');
  const sum = await client.callTool('add', { a: 2, b: 40 });
  say(`< structuredContent ${JSON.stringify(sum.structuredContent)}`);

  say('\n> find_notes { query: "work" }');
  const found = await client.callTool('find_notes', { query: 'work' });
  for (const block of found.content) say(`< ${describe(block)}`);

  say('\n> divide { a: 1, b: 0 }');
  const failed = await client.callTool('divide', { a: 1, b: 0 });
  say(`< isError ${failed.isError === true}: ${failed.content.map(describe).join(' ')}`);

  say('\n> read notes://ideas');
  const { contents } = await client.readResource('notes://ideas');
  for (const item of contents) say(`< ${item.mimeType ?? ''} ${'text' in item ? item.text : '[binary]'}`);
}

async function main(): Promise<void> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  // `auto` (the default) probes with server/discover and falls back to initialize for legacy servers.
  // The factory lets that fallback open a fresh process if a legacy server hangs up on the probe.
  const client = new Client({ name: 'switchboard-session', version: '1.0.0' });
  const open = () => new StdioClientChannel({ command: process.execPath, args: [serverScript, '--stdio'] });
  say(`$ node ${relative(process.cwd(), serverScript)} --stdio`);
  await client.connect(open);
  try {
    await runSession(client, say);
  } finally {
    // Closing ends the child's stdin; the server exits on EOF (SIGTERM/SIGKILL if it would not).
    await client.close();
  }
  say('\nclosed; the server process has exited.');
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  main().catch((error: unknown) => {
    process.stderr.write(`session failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
