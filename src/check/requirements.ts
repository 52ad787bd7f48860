/**
 * The requirement catalogue: every rule of the specification that `switchboard check` can see a
 * server keep or break, as data. Each has a stable id (`area.rule`, never reused for another
 * rule), its level, the revisions it applies to and the spec page it comes from. The probes
 * (`probes/`) report verdicts against these ids; a requirement no probe reached is reported as
 * not tested, so the report always says what was left unchecked.
 */
import { LEGACY_REVISIONS, MODERN_REVISIONS, REVISIONS, type Revision } from '../protocol/revisions.js';

export type Level = 'MUST' | 'SHOULD' | 'MAY';

/** The areas, in the order reports list them. */
export const AREAS = [
  'schema',
  'jsonrpc',
  'lifecycle',
  'capabilities',
  'ping',
  'tools',
  'resources',
  'prompts',
  'completion',
  'pagination',
  'logging',
  'progress',
  'cancellation',
  'subscriptions',
  'envelope',
  'caching',
  'stdio',
  'http',
  'security',
  'authorization',
  'client',
] as const;
export type Area = (typeof AREAS)[number];

/** Whose behaviour a requirement judges: a server's (`switchboard check <target>`) or a client's (`--client`). */
export type Role = 'server' | 'client';

/** The `client` area holds the rules of client mode; every other area judges servers. */
export const roleOf = (requirement: Requirement): Role =>
  requirement.area === 'client' ? 'client' : 'server';

/** Which transport a requirement concerns; absent: any. */
export type TransportKind = 'stdio' | 'http';

export interface Requirement {
  /** Stable: `area.rule`. */
  readonly id: string;
  readonly level: Level;
  readonly area: Area;
  readonly revisions: readonly Revision[];
  /** The spec page (under `specification/<revision>/`), with an anchor where one helps. */
  readonly section: string;
  /** The rule, in our words. */
  readonly text: string;
  readonly transport?: TransportKind;
}

const ALL = REVISIONS;
const LEGACY = LEGACY_REVISIONS;
const MODERN = MODERN_REVISIONS;
/** Revisions with structured tool output (2025-06-18 on). */
const STRUCTURED: readonly Revision[] = ['2026-07-28', '2025-11-25', '2025-06-18'];
/** Revisions with the tool name rule (2025-11-25 on). */
const NAMED: readonly Revision[] = ['2026-07-28', '2025-11-25'];
/** Legacy revisions with Streamable HTTP (2025-03-26 on). */
const STREAMABLE_LEGACY: readonly Revision[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** Revisions whose HTTP transport names the Origin check and its 403 (2025-06-18 on). */
const ORIGIN_403: readonly Revision[] = ['2026-07-28', '2025-11-25', '2025-06-18'];

const r = (
  id: string,
  level: Level,
  revisions: readonly Revision[],
  section: string,
  text: string,
  transport?: TransportKind,
): Requirement => ({
  id,
  level,
  area: id.slice(0, id.indexOf('.')) as Area,
  revisions,
  section,
  text,
  ...(transport ? { transport } : {}),
});

export const REQUIREMENTS: readonly Requirement[] = [
  // --- every message against the official schema
  r(
    'schema.server-messages',
    'MUST',
    ALL,
    'schema',
    'Every message the server sends is valid against the official JSON Schema of the revision in use.',
  ),
  r(
    'schema.revision-fields',
    'SHOULD',
    ALL,
    'schema',
    'Messages carry only the fields the revision in use defines (a field from a later revision means the server did not fit its answer to the version it negotiated).',
  ),

  // --- JSON-RPC 2.0 envelope
  r('jsonrpc.version', 'MUST', ALL, 'basic/index#messages', 'Every message carries "jsonrpc": "2.0".'),
  r(
    'jsonrpc.response-id',
    'MUST',
    ALL,
    'basic/index#responses',
    'A response carries the id of the request it answers, and answers each request once.',
  ),
  r(
    'jsonrpc.result-or-error',
    'MUST',
    ALL,
    'basic/index#responses',
    'A response holds either "result" or "error", never both and never neither.',
  ),
  r(
    'jsonrpc.error-code',
    'MUST',
    ALL,
    'basic/index#responses',
    'An error carries an integer "code" and a string "message".',
  ),
  r(
    'jsonrpc.unknown-method',
    'MUST',
    ALL,
    'basic/index#error-codes',
    'A request for a method the server does not have is answered with error -32601 (Method not found).',
  ),
  r(
    'jsonrpc.notification-no-reply',
    'MUST',
    ALL,
    'basic/index#notifications',
    'The receiver of a notification does not reply to it (an unknown notification included).',
  ),
  r(
    'jsonrpc.parse-error',
    'SHOULD',
    ALL,
    'basic/index#error-codes',
    'A frame that is not JSON is answered with error -32700 (Parse error) and id null (JSON-RPC 2.0 §5.1).',
    'stdio',
  ),
  r(
    'jsonrpc.invalid-request',
    'SHOULD',
    ALL,
    'basic/index#error-codes',
    'A JSON value that is not a valid request (a non-string method) is answered with error -32600 (Invalid Request) (JSON-RPC 2.0 §5.1).',
    'stdio',
  ),

  // --- lifecycle and version negotiation
  r(
    'lifecycle.initialize',
    'MUST',
    LEGACY,
    'basic/lifecycle#initialization',
    'The server answers initialize with its protocol version, capabilities and serverInfo.',
  ),
  r(
    'lifecycle.version-echo',
    'MUST',
    LEGACY,
    'basic/lifecycle#version-negotiation',
    'When the server supports the requested version it answers with that same version; otherwise with another version it supports.',
  ),
  r(
    'lifecycle.version-known',
    'SHOULD',
    LEGACY,
    'basic/lifecycle#version-negotiation',
    'The version the server answers with is a published revision (the latest it supports, when it cannot honour the request).',
  ),
  r(
    'lifecycle.no-requests-before-initialized',
    'SHOULD',
    LEGACY,
    'basic/lifecycle#initialization',
    'The server sends no requests other than ping and logging before it received the initialized notification.',
  ),
  r(
    'lifecycle.discover',
    'MUST',
    MODERN,
    'server/discover',
    'The server answers server/discover with its supported versions (including the requested one) and capabilities.',
  ),
  r(
    'lifecycle.unsupported-version',
    'MUST',
    MODERN,
    'basic/versioning',
    'A request naming a protocol version the server does not support is answered with -32022 and data.supported listing the versions it does.',
  ),
  r(
    'lifecycle.missing-envelope',
    'MUST',
    MODERN,
    'basic/index#meta',
    'A request whose _meta lacks io.modelcontextprotocol/clientCapabilities is refused with -32602.',
  ),
  r(
    'lifecycle.no-server-requests',
    'MUST',
    MODERN,
    'basic/index#messages',
    'The server sends no JSON-RPC requests (input requests travel inside input_required results).',
  ),

  // --- capabilities
  r(
    'capabilities.declared-implemented',
    'MUST',
    ALL,
    'basic/lifecycle#capability-negotiation',
    'A capability the server declares is implemented: its list method answers with a result.',
  ),
  r(
    'capabilities.undeclared-refused',
    'SHOULD',
    ALL,
    'basic/lifecycle#capability-negotiation',
    'A method whose capability the server did not declare is refused with -32601.',
  ),
  r(
    'capabilities.client-respected',
    'MUST',
    LEGACY,
    'basic/lifecycle#capability-negotiation',
    'The server sends no sampling, elicitation or roots request to a client that did not declare the capability.',
  ),

  // --- ping
  r(
    'ping.empty-result',
    'MUST',
    LEGACY,
    'basic/utilities/ping',
    'The server answers ping promptly with an empty result.',
  ),

  // --- tools
  r(
    'tools.input-schema-object',
    'MUST',
    ALL,
    'server/tools#tool',
    'Every tool has an inputSchema that is a JSON Schema object with "type": "object".',
  ),
  r(
    'tools.name-format',
    'SHOULD',
    NAMED,
    'server/tools#tool-names',
    'Tool names are 1-128 characters of A-Z, a-z, 0-9, "_", "-" and ".".',
  ),
  r(
    'tools.name-unique',
    'SHOULD',
    ALL,
    'server/tools#tool-names',
    'Tool names are unique within the server.',
  ),
  r(
    'tools.valid-arguments',
    'SHOULD',
    ALL,
    'server/tools#calling-tools',
    'A call whose arguments satisfy the inputSchema is answered with a CallToolResult, not a JSON-RPC error.',
  ),
  r(
    'tools.invalid-arguments',
    'MUST',
    ALL,
    'server/tools#security-considerations',
    'The server validates tool inputs: a call whose arguments break the inputSchema is not a success (isError: true, or a JSON-RPC error).',
  ),
  r(
    'tools.output-schema',
    'MUST',
    STRUCTURED,
    'server/tools#output-schema',
    'A tool with an outputSchema returns structuredContent that conforms to it in every successful result.',
  ),
  r(
    'tools.unknown-tool',
    'SHOULD',
    ALL,
    'server/tools#error-handling',
    'A call to a tool that does not exist is answered with a JSON-RPC error (-32602).',
  ),

  // --- resources
  r(
    'resources.read-listed',
    'SHOULD',
    ALL,
    'server/resources#reading-resources',
    'A listed resource can be read, and its contents name their URI.',
  ),
  r(
    'resources.template-syntax',
    'MUST',
    ALL,
    'server/resources#resource-templates',
    'Every resource template is a valid RFC 6570 URI template.',
  ),
  r(
    'resources.template-read',
    'SHOULD',
    ALL,
    'server/resources#resource-templates',
    'A URI expanded from a listed template (with values its completion offers, or made-up ones) is read, or refused with a JSON-RPC error; with offered values it is read.',
  ),
  r(
    'resources.not-found',
    'SHOULD',
    LEGACY,
    'server/resources#error-handling',
    'Reading a resource that does not exist is answered with error -32002 (Resource not found).',
  ),
  r(
    'resources.not-found-modern',
    'MUST',
    MODERN,
    'server/resources#error-handling',
    'Reading a resource that does not exist is answered with error -32602, never with empty contents.',
  ),

  // --- prompts
  r(
    'prompts.get',
    'SHOULD',
    ALL,
    'server/prompts#getting-a-prompt',
    'A listed prompt, given its required arguments, is answered with its messages.',
  ),
  r(
    'prompts.missing-arguments',
    'SHOULD',
    ALL,
    'server/prompts#error-handling',
    'Getting a prompt without one of its required arguments is answered with error -32602.',
  ),
  r(
    'prompts.unknown-prompt',
    'SHOULD',
    ALL,
    'server/prompts#error-handling',
    'Getting a prompt that does not exist is answered with error -32602.',
  ),

  // --- completion
  r(
    'completion.values',
    'MUST',
    ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
    'server/utilities/completion',
    'completion/complete answers with at most 100 values.',
  ),

  // --- pagination
  r(
    'pagination.walk',
    'MUST',
    ALL,
    'server/utilities/pagination',
    'Every list can be walked to its end: nextCursor, when present, leads to another page, and no cursor repeats.',
  ),
  r(
    'pagination.invalid-cursor',
    'SHOULD',
    ALL,
    'server/utilities/pagination#error-handling',
    'A forged cursor is answered with error -32602.',
  ),
  r(
    'pagination.stale-cursor',
    'SHOULD',
    ALL,
    'server/utilities/pagination#error-handling',
    'A cursor used again after its walk is served again or refused with -32602, nothing else.',
  ),

  // --- logging
  r(
    'logging.set-level',
    'MUST',
    LEGACY,
    'server/utilities/logging',
    'A server that declares logging answers logging/setLevel with an empty result.',
  ),
  r(
    'logging.invalid-level',
    'SHOULD',
    LEGACY,
    'server/utilities/logging#error-handling',
    'logging/setLevel with a level that does not exist is answered with error -32602.',
  ),

  // --- progress, cancellation, subscriptions (server side)
  r(
    'progress.active-token',
    'MUST',
    ALL,
    'basic/utilities/progress#behavior-requirements',
    'Progress notifications reference only a progressToken the client gave in a request.',
  ),
  r(
    'progress.increasing',
    'MUST',
    ALL,
    'basic/utilities/progress#behavior-requirements',
    'The progress value increases with each notification of a token.',
  ),
  r(
    'progress.stops',
    'MUST',
    ALL,
    'basic/utilities/progress#behavior-requirements',
    'No progress notification for a request comes after its response.',
  ),
  r(
    'cancellation.no-response',
    'SHOULD',
    ALL,
    'basic/utilities/cancellation#behavior-requirements',
    'A request cancelled while still in progress (it had sent progress) gets no successful result afterwards: no response, or an error.',
  ),
  r(
    'cancellation.graceful',
    'MUST',
    ALL,
    'basic/utilities/cancellation#timing-considerations',
    'Cancellations (of a request in progress, of an unknown request) leave the server serving: the next request is answered.',
  ),
  r(
    'subscriptions.updated-uri',
    'SHOULD',
    LEGACY,
    'server/resources#subscriptions',
    'notifications/resources/updated names a resource the client subscribed to.',
  ),
  r(
    'subscriptions.acknowledged',
    'MUST',
    MODERN,
    'basic/patterns/subscriptions#acknowledgment',
    'The first message of a subscriptions/listen stream is notifications/subscriptions/acknowledged, carrying the subscription id and a subset of the requested filter.',
  ),
  r(
    'subscriptions.requested-only',
    'MUST',
    MODERN,
    'basic/patterns/subscriptions#opening-a-stream',
    'A listen stream carries only the notification types (and resource URIs) the client asked for.',
  ),
  r(
    'subscriptions.subscription-id',
    'MUST',
    MODERN,
    'basic/patterns/subscriptions#receiving-notifications',
    'Every notification on a listen stream carries _meta io.modelcontextprotocol/subscriptionId equal to the id of the subscriptions/listen request.',
  ),

  // --- the 2026-07-28 envelope
  r(
    'envelope.result-type',
    'MUST',
    MODERN,
    'basic/patterns/mrtr',
    'Every result carries resultType ("complete", "input_required", or an extension\'s value the client asked for).',
  ),
  r(
    'envelope.server-info',
    'SHOULD',
    MODERN,
    'basic/index#meta',
    'Results carry _meta["io.modelcontextprotocol/serverInfo"].',
  ),

  // --- caching (2026-07-28)
  r(
    'caching.fields',
    'MUST',
    MODERN,
    'server/utilities/caching',
    'Every cacheable result (server/discover, lists, resources/read) carries ttlMs (an integer >= 0) and cacheScope ("public" or "private").',
  ),
  r(
    'caching.same-scope',
    'MUST',
    MODERN,
    'server/utilities/caching',
    'Every page of one list carries the same cacheScope.',
  ),

  // --- stdio
  r(
    'stdio.messages-only',
    'MUST',
    ALL,
    'basic/transports#stdio',
    'The server writes nothing to stdout that is not a valid MCP message, one per line.',
    'stdio',
  ),

  r(
    'stdio.exit-on-eof',
    'SHOULD',
    ALL,
    'basic/lifecycle#shutdown',
    'The server exits when the client closes its stdin (the first shutdown step), without having to be signalled.',
    'stdio',
  ),

  // --- Streamable HTTP
  r(
    'http.content-type',
    'MUST',
    [...MODERN, ...STREAMABLE_LEGACY],
    'basic/transports#sending-messages-to-the-server',
    'A request is answered with Content-Type application/json or text/event-stream.',
    'http',
  ),
  r(
    'http.notification-202',
    'MUST',
    STREAMABLE_LEGACY,
    'basic/transports#sending-messages-to-the-server',
    'A POSTed notification the server accepts is answered with 202 Accepted and no body.',
    'http',
  ),
  r(
    'http.session-id',
    'MUST',
    STREAMABLE_LEGACY,
    'basic/transports#session-management',
    'An Mcp-Session-Id, when the server assigns one, holds only visible ASCII characters.',
    'http',
  ),
  r(
    'http.unknown-session',
    'MUST',
    STREAMABLE_LEGACY,
    'basic/transports#session-management',
    'A request naming a session id the server does not know is answered with 404 Not Found.',
    'http',
  ),
  r(
    'http.missing-session',
    'SHOULD',
    STREAMABLE_LEGACY,
    'basic/transports#session-management',
    'A server that assigns sessions answers a request without Mcp-Session-Id (other than initialize) with 400 Bad Request.',
    'http',
  ),
  r(
    'http.unknown-method-404',
    'MUST',
    MODERN,
    'basic/transports/streamable-http#status-codes',
    'An unknown method is answered with HTTP 404 and a JSON-RPC -32601 body.',
    'http',
  ),
  r(
    'http.unsupported-version-400',
    'MUST',
    MODERN,
    'basic/transports/streamable-http#status-codes',
    'An unsupported protocol version is answered with HTTP 400 and a JSON-RPC -32022 body.',
    'http',
  ),
  r(
    'http.header-mismatch',
    'MUST',
    MODERN,
    'basic/transports/streamable-http#headers',
    'An Mcp-Method header that does not match the body is answered with HTTP 400 and a JSON-RPC -32020 body.',
    'http',
  ),
  r(
    'http.get-405',
    'SHOULD',
    MODERN,
    'basic/transports/streamable-http#earlier-streamable-http-revisions',
    'A server that speaks only 2026-07-28 answers GET on the MCP endpoint with 405 Method Not Allowed (one that also speaks older revisions serves their GET stream).',
    'http',
  ),

  r(
    'http.get-stream',
    'MUST',
    STREAMABLE_LEGACY,
    'basic/transports#listening-for-messages-from-the-server',
    'A GET on the endpoint (with the session id) is answered with Content-Type text/event-stream, or with 405 Method Not Allowed.',
    'http',
  ),
  r(
    'http.delete-session',
    'MUST',
    STREAMABLE_LEGACY,
    'basic/transports#session-management',
    'A DELETE naming the session ends it (2xx; afterwards requests naming it get 404 Not Found), or is refused with 405 Method Not Allowed.',
    'http',
  ),
  r(
    'http.delete-405',
    'SHOULD',
    MODERN,
    'basic/transports/streamable-http#earlier-streamable-http-revisions',
    'A server that speaks only 2026-07-28 answers DELETE on the MCP endpoint with 405 Method Not Allowed (one that also speaks older revisions ends their sessions).',
    'http',
  ),
  r(
    'http.sse-framing',
    'MUST',
    [...MODERN, ...STREAMABLE_LEGACY],
    'basic/transports#sending-messages-to-the-server',
    'An event stream is well-formed SSE: every line a comment or an event, data, id or retry field; every event a default (message) event whose data is one JSON-RPC message (or empty, to prime a reconnection).',
    'http',
  ),
  r(
    'http.event-ids-unique',
    'MUST',
    STREAMABLE_LEGACY,
    'basic/transports#resumability-and-redelivery',
    'SSE event ids, when the server gives them, are unique across all the streams of a session.',
    'http',
  ),
  r(
    'http.resume',
    'SHOULD',
    STREAMABLE_LEGACY,
    'basic/transports#resumability-and-redelivery',
    'A server that gives its SSE events ids replays, on a GET with Last-Event-ID, the messages of that stream sent after that event.',
    'http',
  ),
  r(
    'http.resume-same-stream',
    'MUST',
    STREAMABLE_LEGACY,
    'basic/transports#resumability-and-redelivery',
    'A stream resumed with Last-Event-ID replays only messages of the stream that event was on, never those of another stream.',
    'http',
  ),
  r(
    'http.session-id-entropy',
    'SHOULD',
    STREAMABLE_LEGACY,
    'basic/transports#session-management',
    'Session ids are globally unique and cryptographically secure: distinct sessions get ids that differ in at least 16 characters (no counters, no short ids).',
    'http',
  ),

  // --- the HTTP+SSE transport (2024-11-05), where the target URL serves it
  r(
    'http.sse-endpoint-event',
    'MUST',
    ['2024-11-05'],
    'basic/transports#http-with-sse',
    'A GET on an HTTP+SSE endpoint opens an event stream whose first event is an endpoint event, with the URI to POST messages to.',
    'http',
  ),
  r(
    'http.sse-post-accepted',
    'MUST',
    ['2024-11-05'],
    'basic/transports#http-with-sse',
    'A message POSTed to the URI the endpoint event named is accepted (2xx).',
    'http',
  ),
  r(
    'http.sse-messages-on-stream',
    'MUST',
    ['2024-11-05'],
    'basic/transports#http-with-sse',
    'The server sends its messages, the answer to a POSTed request included, as message events on the stream.',
    'http',
  ),

  // --- security a peer can show
  r(
    'security.origin',
    'MUST',
    ORIGIN_403,
    'basic/transports#security-warning',
    'A local server refuses a request with a foreign Origin header with 403 Forbidden.',
    'http',
  ),

  r(
    'security.host',
    'SHOULD',
    [...MODERN, ...STREAMABLE_LEGACY],
    'basic/transports#security-warning',
    'A local server refuses a request whose Host header names a foreign host (a DNS-rebinding page, which sends no Origin on a GET) with 403 Forbidden.',
    'http',
  ),
  r(
    'security.body-limit',
    'SHOULD',
    [...MODERN, ...STREAMABLE_LEGACY],
    'basic/transports#sending-messages-to-the-server',
    'A request body of 16 MiB is refused with an HTTP error status (413 Payload Too Large, or another 4xx), not served, not a crash or a hang; the server goes on serving.',
    'http',
  ),

  // --- authorization discovery (a protected server: one that answers a request without a token with 401)
  r(
    'authorization.challenge',
    'MUST',
    ORIGIN_403,
    'basic/authorization#authorization-server-location',
    'A protected server answers a request without a token with 401 Unauthorized and a WWW-Authenticate Bearer challenge.',
    'http',
  ),
  r(
    'authorization.metadata-location',
    'MUST',
    ORIGIN_403,
    'basic/authorization#authorization-server-location',
    'A protected server tells where its Protected Resource Metadata is: resource_metadata in the 401 challenge (2025-06-18), or that or the well-known URI (2025-11-25 on).',
    'http',
  ),
  r(
    'authorization.metadata',
    'MUST',
    ORIGIN_403,
    'basic/authorization#authorization-server-location',
    "The Protected Resource Metadata (RFC 9728) is a JSON object whose resource is a URL of the server's origin and whose authorization_servers lists at least one authorization server.",
    'http',
  ),

  // --- clients (client mode: scripted servers in front of the client under test)
  r(
    'client.messages-valid',
    'MUST',
    ALL,
    'schema',
    'Every message the client sends is valid against the official JSON Schema of the revision in use.',
  ),
  r(
    'client.initialize-first',
    'MUST',
    LEGACY,
    'basic/lifecycle#initialization',
    'The first request of a legacy connection is initialize (ping aside), with protocolVersion, capabilities and clientInfo.',
  ),
  r(
    'client.initialized',
    'MUST',
    LEGACY,
    'basic/lifecycle#initialization',
    'After a successful initialize the client sends notifications/initialized before any request other than ping.',
  ),
  r(
    'client.version-fallback',
    'MUST',
    ['2025-06-18', '2025-03-26', '2024-11-05'],
    'basic/lifecycle#version-negotiation',
    'When initialize is answered with an older version the client supports, it goes on in that version (its MCP-Protocol-Version header names it); if it does not support it, it disconnects.',
  ),
  r(
    'client.legacy-fallback',
    'MUST',
    MODERN,
    'basic/versioning',
    'A client that speaks 2026-07-28 and older revisions falls back to initialize when the server does not speak 2026-07-28.',
  ),
  r(
    'client.envelope',
    'MUST',
    MODERN,
    'basic/index#meta',
    'Every request carries _meta io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities.',
  ),
  r(
    'client.protocol-version-header',
    'MUST',
    ['2026-07-28', '2025-11-25', '2025-06-18'],
    'basic/transports#protocol-version-header',
    'Every HTTP request after the handshake carries MCP-Protocol-Version naming the revision in use (on 2026-07-28: the one in _meta).',
    'http',
  ),
  r(
    'client.method-header',
    'MUST',
    MODERN,
    'basic/transports/streamable-http#headers',
    'Every request carries Mcp-Method equal to its method, and tools/call, prompts/get and resources/read carry Mcp-Name equal to the name or URI.',
    'http',
  ),
  r(
    'client.accept',
    'MUST',
    [...MODERN, ...STREAMABLE_LEGACY],
    'basic/transports#sending-messages-to-the-server',
    'Every POST lists both application/json and text/event-stream in its Accept header.',
    'http',
  ),
  r(
    'client.session-id',
    'MUST',
    STREAMABLE_LEGACY,
    'basic/transports#session-management',
    'Once the server assigned an Mcp-Session-Id, every later request of the session carries it.',
    'http',
  ),
  r(
    'client.reinitialize-on-404',
    'MUST',
    STREAMABLE_LEGACY,
    'basic/transports#session-management',
    'A 404 to a request that carried a session id makes the client start a new session with initialize, without a session id.',
    'http',
  ),
  r(
    'client.cursor-opaque',
    'MUST',
    ALL,
    'server/utilities/pagination#implementation-guidelines',
    'The client sends back only cursors the server issued, unchanged.',
  ),
  r(
    'client.elicitation',
    'MUST',
    ['2026-07-28', '2025-11-25', '2025-06-18'],
    'client/elicitation',
    'An elicitation is answered with accept, decline or cancel; accepted content satisfies the requested schema.',
  ),
  r(
    'client.sampling',
    'MUST',
    ALL,
    'client/sampling',
    'A sampling request the client declared it serves is answered with a message (role, content, model) or an error.',
  ),
  r(
    'client.roots',
    'MUST',
    ALL,
    'client/roots',
    'A roots request the client declared it serves is answered with roots whose URIs are file:// URIs.',
  ),
  r(
    'client.ping',
    'MUST',
    LEGACY,
    'basic/utilities/ping#behavior-requirements',
    'A ping from the server is answered promptly with an empty result.',
  ),
  r(
    'client.cancel',
    'SHOULD',
    LEGACY,
    'basic/utilities/cancellation',
    'A request the client abandons (a timeout, the user stopping it) is cancelled with notifications/cancelled naming it.',
  ),
  r(
    'client.cancel-stdio',
    'MUST',
    MODERN,
    'basic/transports/stdio',
    'Over stdio, a request the client abandons is cancelled with notifications/cancelled naming it.',
    'stdio',
  ),
  r(
    'client.cancel-valid',
    'MUST',
    ALL,
    'basic/utilities/cancellation#cancellation-flow',
    'A notifications/cancelled names a request the client sent in the same direction, and never initialize.',
  ),
  r(
    'client.sse-resume',
    'SHOULD',
    STREAMABLE_LEGACY,
    'basic/transports#resumability-and-redelivery',
    'When a response stream ends before its response, the client resumes it with GET and the Last-Event-ID of the last event it received.',
    'http',
  ),
  r(
    'client.sse-retry',
    'MUST',
    ['2025-11-25'],
    'basic/transports#sending-messages-to-the-server',
    'After a server closed a stream that carried a retry field, the client waits that many milliseconds before reconnecting.',
    'http',
  ),
  r(
    'client.input-required',
    'MUST',
    MODERN,
    'basic/patterns/mrtr',
    'A request answered with input_required is retried with an inputResponses entry for every input request and the requestState given back unchanged.',
  ),
];

const byId = new Map(REQUIREMENTS.map((requirement) => [requirement.id, requirement]));

/** The requirement with this id; throws for an id the catalogue does not have (a probe's typo). */
export function requirement(id: string): Requirement {
  const found = byId.get(id);
  if (!found) throw new Error(`No requirement "${id}" in the catalogue.`);
  return found;
}

/** The ids of an area's requirements, in catalogue order. */
export function idsOf(area: Area): string[] {
  return REQUIREMENTS.filter((r) => r.area === area).map((r) => r.id);
}

/** Whether a requirement applies to a revision over a transport. */
export function appliesTo(requirement: Requirement, revision: Revision, transport: TransportKind): boolean {
  return (
    requirement.revisions.includes(revision) &&
    (requirement.transport === undefined || requirement.transport === transport)
  );
}

/** The spec page's address for a requirement in one revision. */
export function specUrl(requirement: Requirement, revision: Revision): string {
  return `https://modelcontextprotocol.io/specification/${revision}/${requirement.section}`;
}
