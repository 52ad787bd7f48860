import { Client, ErrorCode, ProtocolError, Server, SwitchboardError } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const server = new Server({ name: 'errors', version: '1.0.0' });
server.registerTool('divide', {}, () => {
  throw new Error('Division by zero: pass a non-zero divisor.');
});
server.registerTool(
  'slow',
  {},
  (_args, ctx) =>
    new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('late'))),
);

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' }, { timeoutMs: 30_000 });
await client.connect(clientEnd);

// 1. The tool failed: a result with isError, for the model to read. Nothing is thrown.
const failed = await client.callTool('divide');
console.log(failed.isError, failed.content[0]);

// 2. The server refused the request: ProtocolError with the spec's numeric code.
try {
  await client.callTool('multiply');
} catch (error) {
  if (error instanceof ProtocolError && error.code === ErrorCode.InvalidParams)
    console.log(error.code, error.message);
}

// 3. Something failed here: SwitchboardError with a stable string code.
try {
  await client.callTool('slow', {}, { timeoutMs: 50 });
} catch (error) {
  if (error instanceof SwitchboardError) console.log(error.code);
}
await client.close();
try {
  await client.listTools();
} catch (error) {
  if (error instanceof SwitchboardError) console.log(error.code, error.message);
}

// Output:
// true { type: 'text', text: 'Division by zero: pass a non-zero divisor.' }
// -32602 Unknown tool: "multiply". Call tools/list for the available tools.
// TIMEOUT
// NOT_CONNECTED The client is not connected: await client.connect(channel) first.
