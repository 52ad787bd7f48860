/** Hand-written wire messages for the schema-checker tests. */
import type { Revision } from '../../src/protocol/revisions.js';

type Json = Record<string, unknown>;

export const LEGACY: readonly Revision[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
export const ALL: readonly Revision[] = [...LEGACY, '2026-07-28'];

export const request = (id: number | string, method: string, params?: Json): Json => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

export const notification = (method: string, params?: Json): Json => ({
  jsonrpc: '2.0',
  method,
  ...(params === undefined ? {} : { params }),
});

export const result = (id: number | string, body: Json): Json => ({ jsonrpc: '2.0', id, result: body });

export const error = (id: number | string | null, code: number, message: string, data?: unknown): Json => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) },
});

/** The `_meta` every 2026-07-28 request carries. */
export const modernMeta = (extra: Json = {}): Json => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});

/** A request as a client sends it on `revision`: modern requests carry the required `_meta`. */
export const clientRequest = (revision: Revision, id: number, method: string, params: Json = {}): Json =>
  revision === '2026-07-28'
    ? request(id, method, { ...params, _meta: modernMeta() })
    : request(id, method, Object.keys(params).length ? params : undefined);

/** A result body as a server sends it on `revision`: modern results carry `resultType`. */
export const resultBody = (revision: Revision, body: Json): Json =>
  revision === '2026-07-28' ? { resultType: 'complete', ...body } : body;

/** Modern list results also carry cache hints. */
export const listBody = (revision: Revision, body: Json): Json =>
  revision === '2026-07-28' ? { resultType: 'complete', ttlMs: 0, cacheScope: 'public', ...body } : body;

export const initialize = (revision: Revision, id = 1): Json =>
  request(id, 'initialize', {
    protocolVersion: revision,
    capabilities: { roots: { listChanged: true } },
    clientInfo: { name: 'test-client', version: '1.0.0' },
  });

export const initializeResult = (revision: Revision, id = 1): Json =>
  result(id, {
    protocolVersion: revision,
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true }, logging: {} },
    serverInfo: { name: 'test-server', version: '1.0.0' },
    instructions: 'Use the tools.',
  });

/** A tool whose input schema uses keywords the MCP schemas do not list. */
export const richTool = {
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number', minimum: 0 } },
    required: ['a', 'b'],
    additionalProperties: false,
    $defs: { positive: { type: 'number', exclusiveMinimum: 0 } },
  },
};
