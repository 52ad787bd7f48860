/**
 * The raw limit's client: no MCP library. Over stdio, newline-delimited JSON-RPC on a child's pipes
 * with one `write` per request; over HTTP, `node:http` with a keep-alive agent. It does what any MCP
 * client must (the handshake or the 2026-07-28 envelope and headers, id correlation, reading JSON or
 * SSE answers) and nothing else: no validation, no timeouts, no schema work.
 */
import { spawn } from 'node:child_process';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import {
  type BenchClient,
  type CallResult,
  CLIENT_INFO,
  type ConnectClient,
  type Era,
  LEGACY,
  MODERN,
} from './types.js';

type Message = { id?: number; result?: any; error?: { code: number; message: string } };

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
};

export const connect: ConnectClient = (era, target) =>
  target.kind === 'stdio' ? connectStdio(era, target.command, target.args) : connectHttp(era, target.url);

/** What both raw transports share: ids, the era's params, the handshake. */
abstract class RawClient implements BenchClient {
  protected nextId = 1;
  constructor(protected readonly era: Era) {}
  abstract get serverPid(): number | undefined;
  protected abstract request(method: string, params: Record<string, unknown>): Promise<any>;
  protected abstract notify(method: string): Promise<void>;
  abstract close(): Promise<void>;

  async handshake(): Promise<void> {
    if (this.era === 'modern') {
      await this.request('server/discover', { _meta: ENVELOPE });
      return;
    }
    await this.request('initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: CLIENT_INFO });
    await this.notify('notifications/initialized');
  }

  call(name: string, args: Record<string, unknown>): Promise<CallResult> {
    const params =
      this.era === 'modern' ? { name, arguments: args, _meta: ENVELOPE } : { name, arguments: args };
    return this.request('tools/call', params);
  }

  async listTools(): Promise<number> {
    const result = await this.request('tools/list', this.era === 'modern' ? { _meta: ENVELOPE } : {});
    return result.tools.length;
  }
}

function settle(message: Message, resolve: (v: any) => void, reject: (e: Error) => void): void {
  if (message.error) reject(new Error(`${message.error.code}: ${message.error.message}`));
  else resolve(message.result);
}

// --- stdio ---------------------------------------------------------------------------------------

class RawStdioClient extends RawClient {
  private readonly waiting = new Map<number, { resolve(v: any): void; reject(e: Error): void }>();
  private readonly exited: Promise<void>;
  private pending: Buffer[] = [];
  private readonly child;

  constructor(era: Era, command: string, args: readonly string[]) {
    super(era);
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.on('error', () => {});
    this.child.once('exit', () => {
      for (const { reject } of this.waiting.values()) reject(new Error('server exited'));
      this.waiting.clear();
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl);
        this.line(this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]));
        this.pending = [];
        start = nl + 1;
      }
      if (start < chunk.length) this.pending.push(chunk.subarray(start));
    });
  }

  get serverPid(): number | undefined {
    return this.child.pid;
  }

  private line(bytes: Buffer): void {
    const message = JSON.parse(bytes.toString('utf8')) as Message;
    if (message.id === undefined) return;
    const waiter = this.waiting.get(message.id);
    if (!waiter) return;
    this.waiting.delete(message.id);
    settle(message, waiter.resolve, waiter.reject);
  }

  protected request(method: string, params: Record<string, unknown>): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  protected async notify(method: string): Promise<void> {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    await this.exited;
    clearTimeout(timer);
  }
}

async function connectStdio(era: Era, command: string, args: readonly string[]): Promise<BenchClient> {
  const client = new RawStdioClient(era, command, args);
  await client.handshake();
  return client;
}

// --- HTTP ----------------------------------------------------------------------------------------

/** One keep-alive pool per process, shared by every raw HTTP client in it (as a real app would). */
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function post(url: URL, body: string, headers: Record<string, string>, method = 'POST'): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method,
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC response with `id` in a JSON body or an SSE stream of events. */
function responseIn(answer: HttpAnswer, id: number): Message {
  const type = answer.headers['content-type'] ?? '';
  if (!type.startsWith('text/event-stream')) return JSON.parse(answer.body) as Message;
  for (const event of answer.body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (data === '') continue;
    const message = JSON.parse(data) as Message;
    if (message.id === id) return message;
  }
  throw new Error(`no response for request ${id} in the event stream (HTTP ${answer.status})`);
}

class RawHttpClient extends RawClient {
  private session: string | undefined;
  private readonly url: URL;

  constructor(era: Era, url: string) {
    super(era);
    this.url = new URL(url);
  }

  readonly serverPid = undefined;

  private headers(method: string, name: string | undefined): Record<string, string> {
    if (this.era === 'modern') {
      const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
      if (name !== undefined) headers['mcp-name'] = name;
      return headers;
    }
    if (this.session === undefined) return {};
    return { 'mcp-session-id': this.session, 'mcp-protocol-version': LEGACY };
  }

  protected async request(method: string, params: Record<string, any>): Promise<any> {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const answer = await post(this.url, body, this.headers(method, params.name));
    if (answer.status !== 200)
      throw new Error(`HTTP ${answer.status} for ${method}: ${answer.body.slice(0, 200)}`);
    if (method === 'initialize') this.session = answer.headers['mcp-session-id'] as string | undefined;
    return new Promise((resolve, reject) => settle(responseIn(answer, id), resolve, reject));
  }

  protected async notify(method: string): Promise<void> {
    const answer = await post(
      this.url,
      JSON.stringify({ jsonrpc: '2.0', method }),
      this.headers(method, undefined),
    );
    if (answer.status !== 202 && answer.status !== 200)
      throw new Error(`HTTP ${answer.status} for ${method}`);
  }

  async close(): Promise<void> {
    if (this.session === undefined) return;
    await post(this.url, '', this.headers('', undefined), 'DELETE').catch(() => undefined);
  }
}

async function connectHttp(era: Era, url: string): Promise<BenchClient> {
  const client = new RawHttpClient(era, url);
  await client.handshake();
  return client;
}
