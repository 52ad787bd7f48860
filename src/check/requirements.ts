/**
 * The requirement catalogue: every rule of the specification that `switchboard check` can see a
 * server keep or break, as data. Each has a stable id (`area.rule`, never reused for another
 * rule), its level, the revisions it applies to and the spec page it comes from. The probes
 * (`probes/`) report verdicts against these ids; a requirement no probe reached is reported as
 * not tested, so the report always says what was left unchecked.
 */
import { LEGACY_REVISIONS, MODERN_REVISIONS, REVISIONS, type Revision } from '../protocol/revisions.js';

/**
 * A rule's level is the keyword of the sentence it rests on: MUST fails, SHOULD warns, MAY never
 * warns. `HARDENING` is advice the specification does not give (or gives without a keyword):
 * reported apart, it never lowers the score.
 */
export type Level = 'MUST' | 'SHOULD' | 'MAY' | 'HARDENING';

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
  'skills',
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

/**
 * The sentence of the specification a rule rests on, in the revisions whose text has it. A test
 * (test/check/catalogue.test.ts) finds every quote in the spec's own text (spec/text/), so a rule
 * cannot drift from its source.
 */
export interface Page {
  readonly revisions: readonly Revision[];
  /** The spec page (under `specification/<revision>/`), with an anchor where one helps. */
  readonly section: string;
}

export interface Source extends Page {
  /** The sentence, as the page has it (markdown marks and links dropped, spaces collapsed). */
  readonly quote: string;
  /** The sentence's keyword in these revisions, where it is not the rule's (a SHOULD that became a MUST). */
  readonly level?: Level;
}

export interface Requirement {
  /** Stable: `area.rule`. */
  readonly id: string;
  /** The level in the newest revision it applies to (`levelIn` gives each revision's). */
  readonly level: Level;
  readonly area: Area;
  readonly revisions: readonly Revision[];
  /** The sentences it rests on; every revision of a rule but a hardening one has one. */
  readonly sources: readonly Source[];
  /** The pages a hardening rule without a source concerns. */
  readonly pages?: readonly Page[];
  /** The rule, in our words: what the server must do (a report's "what to change"). */
  readonly text: string;
  readonly transport?: TransportKind;
  /** Where the rule reads more into a sentence than it says: the reading, stated (docs/check.md). */
  readonly reading?: string;
}

const ALL = REVISIONS;
const LEGACY = LEGACY_REVISIONS;
const MODERN = MODERN_REVISIONS;
const R1 = '2024-11-05';
const R2 = '2025-03-26';
const R3 = '2025-06-18';
const R4 = '2025-11-25';
const R5 = '2026-07-28';
/** Revisions with structured tool output (2025-06-18 on). */
const STRUCTURED: readonly Revision[] = [R5, R4, R3];
/** Legacy revisions with Streamable HTTP (2025-03-26 on). */
const STREAMABLE_LEGACY: readonly Revision[] = [R4, R3, R2];

const q = (revisions: readonly Revision[], section: string, quote: string, level?: Level): Source => ({
  revisions,
  section,
  quote,
  ...(level ? { level } : {}),
});

function r(
  id: string,
  level: Level,
  text: string,
  sources: readonly Source[],
  extra: {
    readonly transport?: TransportKind;
    readonly reading?: string;
    readonly revisions?: readonly Revision[];
    readonly pages?: readonly Page[];
  } = {},
): Requirement {
  const covered = new Set([...sources, ...(extra.pages ?? [])].flatMap((s) => s.revisions));
  return {
    id,
    level,
    area: id.slice(0, id.indexOf('.')) as Area,
    revisions: extra.revisions ?? REVISIONS.filter((v) => covered.has(v)),
    sources,
    text,
    ...(extra.pages ? { pages: extra.pages } : {}),
    ...(extra.transport ? { transport: extra.transport } : {}),
    ...(extra.reading ? { reading: extra.reading } : {}),
  };
}

/** The Skills extension's SEP (spec/text/seps/): its rules cite it in every revision, as it negotiates in each. */
const SKILLS_SEP = 'seps/2640-skills-extension';

// Sentences several rules rest on.
const MESSAGES_2024 = 'basic/messages';
const JSON_RPC = 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.';
const SOURCE_OF_TRUTH = 'This is the source of truth for all protocol messages and structures.';
const RESPECT_VERSION_LEGACY =
  'Both parties SHOULD: - Respect the negotiated protocol version - Only use capabilities that were successfully negotiated';
const RESPECT_VERSION =
  'Both parties MUST: - Respect the negotiated protocol version - Only use capabilities that were successfully negotiated';
const SEND_RECEIVE_LEGACY = 'basic/transports#sending-messages-to-the-server';
const SEND_RECEIVE = 'basic/transports/streamable-http#sending-messages';
const CONTENT_TYPE =
  'If the input is a JSON-RPC request, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.';
const CONTENT_TYPE_2025_03 =
  'If the input contains any number of JSON-RPC requests, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.';
const SESSIONS = 'basic/transports#session-management';
const RESUME = 'basic/transports#resumability-and-redelivery';
const ORIGIN =
  'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks';
const ORIGIN_403 =
  'If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden.';
const TOOL_PROTOCOL_ERRORS = 'Protocol Errors: Standard JSON-RPC errors for issues like: - Unknown tools';
const PROMPT_ERRORS =
  'Servers SHOULD return standard JSON-RPC errors for common failure cases: - Invalid prompt name: -32602 (Invalid params) - Missing required arguments: -32602 (Invalid params)';
const PROGRESS_TOKENS =
  'Progress notifications MUST only reference tokens that: - Were provided in an active request - Are associated with an in-progress operation';
const PROGRESS_INCREASES =
  'The progress value MUST increase with each notification, even if the total is unknown.';
const CANCEL_NO_RESPONSE =
  'SHOULD: - Stop processing the cancelled request - Free associated resources - Not send a response for the cancelled request';
const RACES = 'Both parties MUST handle these race conditions gracefully';
const PRM =
  'MCP servers MUST implement the OAuth 2.0 Protected Resource Metadata (RFC9728) specification to indicate the locations of authorization servers.';

/** Where a protected server says its authorization server is: the 401 challenge, the metadata. */
const AUTHORIZATION_LOCATION: readonly Source[] = [
  q(
    [R3],
    'basic/authorization#authorization-server-location',
    'MCP servers MUST use the HTTP header WWW-Authenticate when returning a 401 Unauthorized to indicate the location of the resource server metadata URL',
  ),
  q([R4], 'basic/authorization#authorization-server-location', PRM),
  q(MODERN, 'basic/authorization/authorization-server-discovery', PRM),
];

export const REQUIREMENTS: readonly Requirement[] = [
  // --- every message against the official schema
  r(
    'schema.server-messages',
    'MUST',
    'Every message the server sends is valid against the official JSON Schema of the revision in use.',
    [q(ALL, 'basic/index#schema', SOURCE_OF_TRUTH)],
    {
      reading:
        'The schema is "the source of truth for all protocol messages and structures": a message its JSON Schema refuses is no message of the protocol.',
    },
  ),
  r(
    'schema.revision-fields',
    'SHOULD',
    'Messages carry only the fields the revision in use defines (a field from a later revision means the server did not fit its answer to the version it negotiated).',
    [
      q(
        LEGACY.filter((v) => v < R3),
        'basic/lifecycle#operation',
        RESPECT_VERSION_LEGACY,
      ),
      q([R4, R3], 'basic/lifecycle#operation', RESPECT_VERSION, 'SHOULD'),
      q(MODERN, 'basic/index#schema', SOURCE_OF_TRUTH),
    ],
    {
      reading:
        'The schemas allow fields they do not define, so a later revision\'s field breaks no schema; it shows the server did not "respect the negotiated protocol version". Reported as a SHOULD, never as the MUST that sentence is from 2025-06-18 on.',
    },
  ),

  // --- JSON-RPC 2.0 envelope
  r('jsonrpc.version', 'MUST', 'Every message carries "jsonrpc": "2.0".', [
    q([R1], 'basic/index', JSON_RPC),
    q([R2, R3, R4, R5], 'basic/index#messages', JSON_RPC),
  ]),
  r(
    'jsonrpc.response-id',
    'MUST',
    'A response carries the id of the request it answers, and answers each request once.',
    [
      q([R1], MESSAGES_2024, 'Responses MUST include the same ID as the request they correspond to.'),
      q(
        [R2, R3],
        'basic/index#responses',
        'Responses MUST include the same ID as the request they correspond to.',
      ),
      q(
        [R4, R5],
        'basic/index#responses',
        'Result responses MUST include the same ID as the request they correspond to.',
      ),
    ],
  ),
  r(
    'jsonrpc.result-or-error',
    'MUST',
    'A response holds either "result" or "error", never both and never neither.',
    [
      q([R1], MESSAGES_2024, 'Either a result or an error MUST be set. A response MUST NOT set both.'),
      q(
        [R2, R3],
        'basic/index#responses',
        'Either a result or an error MUST be set. A response MUST NOT set both.',
      ),
      q([R4, R5], 'basic/index#responses', 'Result responses MUST include a result field.'),
    ],
  ),
  r('jsonrpc.error-code', 'MUST', 'An error carries an integer "code" and a string "message".', [
    q([R1], MESSAGES_2024, 'Error codes MUST be integers.'),
    q([R2, R3, R4, R5], 'basic/index#responses', 'Error codes MUST be integers.'),
  ]),
  r(
    'jsonrpc.unknown-method',
    'MUST',
    'A request for a method the server does not have is answered with error -32601 (Method not found).',
    [q([R1], 'basic/index', JSON_RPC), q([R2, R3, R4, R5], 'basic/index#messages', JSON_RPC)],
    {
      reading: 'JSON-RPC 2.0 (§5.1), which MCP messages MUST follow, answers an unknown method with -32601.',
    },
  ),
  r(
    'jsonrpc.notification-no-reply',
    'MUST',
    'The receiver of a notification does not reply to it (an unknown notification included).',
    [
      q([R1], MESSAGES_2024, 'Notifications MUST NOT include an ID.'),
      q([R2, R3, R4, R5], 'basic/index#notifications', 'The receiver MUST NOT send a response.'),
    ],
  ),
  r(
    'jsonrpc.parse-error',
    'SHOULD',
    'A frame that is not JSON is answered with error -32700 (Parse error) and id null (JSON-RPC 2.0 §5.1).',
    [q([R1], 'basic/index', JSON_RPC), q([R2, R3, R4, R5], 'basic/index#messages', JSON_RPC)],
    {
      transport: 'stdio',
      reading:
        'JSON-RPC 2.0 answers invalid JSON with -32700; MCP says no more about frames that are not messages, so this is held as a SHOULD, not as the MUST of following JSON-RPC.',
    },
  ),
  r(
    'jsonrpc.invalid-request',
    'SHOULD',
    'A JSON value that is not a valid request (a non-string method) is answered with error -32600 (Invalid Request) (JSON-RPC 2.0 §5.1).',
    [q([R1], 'basic/index', JSON_RPC), q([R2, R3, R4, R5], 'basic/index#messages', JSON_RPC)],
    {
      transport: 'stdio',
      reading:
        'JSON-RPC 2.0 answers an invalid request with -32600; held as a SHOULD for the reason jsonrpc.parse-error is.',
    },
  ),
  r(
    'jsonrpc.batch',
    'MUST',
    'A JSON-RPC batch (an array of requests) is answered: one response per request in it.',
    [
      q(
        [R2],
        'basic/index#batching',
        'MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches.',
      ),
    ],
  ),
  r(
    'jsonrpc.batch-refused',
    'SHOULD',
    'A JSON-RPC batch is refused (an error, not served): from 2025-06-18 on a message is a single request, notification or response.',
    [
      q(
        [R3, R4],
        'basic/transports#sending-messages-to-the-server',
        'The body of the POST request MUST be a single JSON-RPC request, notification, or response.',
        'SHOULD',
      ),
    ],
    {
      reading:
        '2025-06-18 removed batching (its changelog: "Remove support for JSON-RPC batching"); the sentence binds the client. A server that still serves a batch accepts what its revision\'s clients must not send, and hides their bug: a SHOULD, not the sentence\'s MUST.',
    },
  ),

  // --- lifecycle and version negotiation
  r(
    'lifecycle.initialize',
    'MUST',
    'The server answers initialize with its protocol version, capabilities and serverInfo.',
    [
      q(
        LEGACY,
        'basic/lifecycle#initialization',
        'The server MUST respond with its own capabilities and information',
      ),
    ],
  ),
  r(
    'lifecycle.version-echo',
    'MUST',
    'When the server supports the requested version it answers with that same version; otherwise (a version it does not support) with another version it supports, never the one asked for.',
    [
      q(
        LEGACY,
        'basic/lifecycle#version-negotiation',
        'If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports.',
      ),
    ],
  ),
  r(
    'lifecycle.version-known',
    'SHOULD',
    'The version the server answers with is a published revision (the latest it supports, when it cannot honour the request).',
    [
      q(
        LEGACY,
        'basic/lifecycle#version-negotiation',
        'This SHOULD be the latest version supported by the server.',
      ),
    ],
  ),
  r(
    'lifecycle.no-requests-before-initialized',
    'SHOULD',
    'The server sends no requests other than ping and logging before it received the initialized notification.',
    [
      q(
        LEGACY,
        'basic/lifecycle#initialization',
        'The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification.',
      ),
    ],
  ),
  r(
    'lifecycle.discover',
    'MUST',
    'The server answers server/discover with its supported versions (including the requested one) and capabilities.',
    [q(MODERN, 'basic/versioning', 'Servers MUST implement server/discover.')],
  ),
  r(
    'lifecycle.unsupported-version',
    'MUST',
    'A request naming a protocol version the server does not support is answered with -32022 and data.supported listing the versions it does.',
    [
      q(
        MODERN,
        'basic/versioning',
        'If the server does not implement the requested version (whether the version is unknown to the server, or is a known version the server has chosen not to support), it MUST respond with an UnsupportedProtocolVersionError listing the versions it does support',
      ),
    ],
  ),
  r(
    'lifecycle.missing-envelope',
    'MUST',
    'A request whose _meta lacks io.modelcontextprotocol/clientCapabilities is refused with -32602.',
    [q(MODERN, 'basic/index#meta', 'fields marked as required MUST be included on every request.')],
  ),
  r(
    'lifecycle.no-server-requests',
    'MUST',
    'The server sends no JSON-RPC requests (input requests travel inside input_required results).',
    [
      q(
        MODERN,
        'basic/patterns',
        'Servers MUST NOT initiate JSON-RPC requests, and clients do not send JSON-RPC responses.',
      ),
    ],
  ),

  // --- capabilities
  r(
    'capabilities.declared-implemented',
    'MUST',
    'A capability the server declares is implemented: its list method answers with a result.',
    [
      q([R1, R2], 'basic/lifecycle#operation', RESPECT_VERSION_LEGACY, 'MUST'),
      q([R3, R4], 'basic/lifecycle#operation', RESPECT_VERSION),
      q(
        MODERN,
        'server/tools#capabilities',
        'Servers that declare the tools capability MUST respond to tools/list requests with the set of tools currently available to the requesting client.',
      ),
    ],
    {
      reading:
        'A declared capability is one "successfully negotiated"; a server that declares one and cannot serve its list method broke the negotiation. Held as a MUST in every revision (2024-11-05 and 2025-03-26 word the sentence as a SHOULD): a declared capability that is not there is not a feature the client may rely on.',
    },
  ),
  r(
    'capabilities.undeclared-refused',
    'SHOULD',
    'A method whose capability the server did not declare is refused with -32601.',
    [
      q([R1, R2], 'basic/lifecycle#operation', RESPECT_VERSION_LEGACY),
      q([R3, R4], 'basic/lifecycle#operation', RESPECT_VERSION, 'SHOULD'),
      q(
        MODERN,
        'server/utilities/completion#error-handling',
        'Servers SHOULD return standard JSON-RPC errors for common failure cases: - Method not found: -32601 (Capability not supported)',
      ),
    ],
    {
      reading:
        'Serving a method whose capability was not negotiated uses a capability that was not "successfully negotiated"; a SHOULD, since the client that sent the request is the first to blame.',
    },
  ),
  r(
    'capabilities.client-respected',
    'MUST',
    'The server sends no sampling, elicitation or roots request to a client that did not declare the capability.',
    [
      q([R1, R2], 'basic/lifecycle#operation', RESPECT_VERSION_LEGACY, 'SHOULD'),
      q([R3, R4], 'basic/lifecycle#operation', RESPECT_VERSION),
    ],
  ),

  // --- ping
  r('ping.empty-result', 'MUST', 'The server answers ping promptly with an empty result.', [
    q(
      LEGACY,
      'basic/utilities/ping#behavior-requirements',
      'The receiver MUST respond promptly with an empty response',
    ),
  ]),

  // --- tools
  r(
    'tools.input-schema-object',
    'MUST',
    'Every tool has an inputSchema that is a JSON Schema object with "type": "object".',
    [
      q([R1, R2, R3], 'basic/index#schema', SOURCE_OF_TRUTH),
      q([R4, R5], 'server/tools#tool', 'MUST be a valid JSON Schema object (not null)'),
    ],
    { reading: 'The schema types inputSchema as an object schema with "type": "object".' },
  ),
  r('tools.name-format', 'SHOULD', 'Tool names are 1-128 characters of A-Z, a-z, 0-9, "_", "-" and ".".', [
    q(
      [R4, R5],
      'server/tools#tool-names',
      'Tool names SHOULD be between 1 and 128 characters in length (inclusive).',
    ),
  ]),
  r(
    'tools.name-unique',
    'SHOULD',
    'Tool names are unique within the server.',
    [
      q([R1, R2, R3], 'server/tools#listing-tools', 'Unique identifier for the tool'),
      q([R4, R5], 'server/tools#tool-names', 'Tool names SHOULD be unique within a server.'),
    ],
    {
      reading:
        'Before 2025-11-25 the name is the tool\'s "unique identifier", without a keyword: held as the SHOULD later revisions made it.',
    },
  ),
  r(
    'tools.valid-arguments',
    'HARDENING',
    'A call whose arguments satisfy the inputSchema is answered with a CallToolResult, not a JSON-RPC error (a refusal of a value the checker made up is not counted).',
    [
      q(
        [R1, R2, R3, R4],
        'server/tools#error-handling',
        'Tool Execution Errors: Reported in tool results with isError: true',
      ),
      q(MODERN, 'server/tools#error-handling', 'Tool Execution Errors contain actionable feedback'),
    ],
    {
      reading:
        'The spec puts a tool\'s own failures in the result (isError: true) and keeps JSON-RPC errors for unknown tools, malformed requests and "server errors", without a keyword: a JSON-RPC error for a valid call is advice, not a SHOULD.',
    },
  ),
  r(
    'tools.invalid-arguments',
    'MUST',
    'The server validates tool inputs: a call whose arguments break the inputSchema is not a success (isError: true, or a JSON-RPC error).',
    [q(ALL, 'server/tools#security-considerations', 'Servers MUST: - Validate all tool inputs')],
  ),
  r(
    'tools.output-schema',
    'MUST',
    'A tool with an outputSchema returns structuredContent that conforms to it in every successful result.',
    [
      q(
        STRUCTURED,
        'server/tools#output-schema',
        'Servers MUST provide structured results that conform to this schema.',
      ),
    ],
  ),
  r(
    'tools.unknown-tool',
    'HARDENING',
    'A call to a tool that does not exist is answered with a JSON-RPC error (-32602).',
    [
      q(
        [R1, R2],
        'server/tools#error-handling',
        'Protocol Errors: Standard JSON-RPC errors for issues like: - Unknown tools',
      ),
      q([R3, R4], 'server/tools#error-handling', TOOL_PROTOCOL_ERRORS),
      q(
        MODERN,
        'server/tools#error-handling',
        'Protocol Errors indicate issues with the request structure itself that models are less likely to be able to fix: - Unknown tool',
      ),
    ],
    {
      reading:
        'The spec lists unknown tools among the protocol errors without a keyword: advice, not a SHOULD.',
    },
  ),

  // --- resources
  r(
    'resources.read-listed',
    'HARDENING',
    'A listed resource can be read, and its contents name their URI.',
    [
      q(
        ALL,
        'server/resources#reading-resources',
        'To retrieve resource contents, clients send a resources/read request',
      ),
    ],
    {
      reading:
        'Nothing requires a listed resource to be readable at all times; a listed resource the server cannot read is advice.',
    },
  ),
  r(
    'resources.template-syntax',
    'MUST',
    'Every resource template is a valid RFC 6570 URI template.',
    [
      q(
        ALL,
        'server/resources#resource-templates',
        'Resource templates allow servers to expose parameterized resources using URI templates.',
      ),
    ],
    {
      reading:
        'A template the RFC 6570 syntax refuses is no URI template; the schema names uriTemplate "A URI template (according to RFC 6570)".',
    },
  ),
  r(
    'resources.template-read',
    'HARDENING',
    'A URI expanded from a listed template (with values its completion offers, or made-up ones) is read, or refused with a JSON-RPC error; with offered values it is read.',
    [
      q(
        ALL,
        'server/resources#resource-templates',
        'Resource templates allow servers to expose parameterized resources using URI templates.',
      ),
    ],
    {
      reading:
        'A template the server lists but whose offered values it cannot read is advice: the spec does not say a template must expand to readable resources.',
    },
  ),
  r(
    'resources.not-found',
    'SHOULD',
    'Reading a resource that does not exist is answered with error -32002 (Resource not found).',
    [
      q(
        LEGACY,
        'server/resources#error-handling',
        'Servers SHOULD return standard JSON-RPC errors for common failure cases: - Resource not found: -32002',
      ),
    ],
  ),
  r(
    'resources.not-found-modern',
    'MUST',
    'Reading a resource that does not exist is answered with error -32602, never with empty contents.',
    [
      q(
        MODERN,
        'server/resources#error-handling',
        'If the requested resource does not exist, servers MUST return a JSON-RPC error with code -32602 (Invalid Params).',
      ),
    ],
  ),

  // --- prompts
  r(
    'prompts.get',
    'HARDENING',
    'A listed prompt, given its required arguments, is answered with its messages (a refusal of a value the checker made up is not counted).',
    [
      q(
        ALL,
        'server/prompts#getting-a-prompt',
        'To retrieve a specific prompt, clients send a prompts/get request.',
      ),
    ],
    {
      reading:
        'No keyword makes a listed prompt servable with every value; a listed prompt that fails with values its own completion offered is advice.',
    },
  ),
  r(
    'prompts.missing-arguments',
    'SHOULD',
    'Getting a prompt without one of its required arguments is answered with error -32602.',
    [q(ALL, 'server/prompts#error-handling', PROMPT_ERRORS)],
  ),
  r(
    'prompts.unknown-prompt',
    'SHOULD',
    'Getting a prompt that does not exist is answered with error -32602.',
    [q(ALL, 'server/prompts#error-handling', PROMPT_ERRORS)],
  ),

  // --- completion
  r(
    'completion.values',
    'MUST',
    'completion/complete answers with at most 100 values.',
    [q([R5, R4, R3, R2], 'server/utilities/completion#completion-results', 'Maximum 100 items per response')],
    {
      reading:
        'The schema has values "Must not exceed 100 items"; the page lists "Maximum 100 items per response".',
    },
  ),

  // --- pagination
  r(
    'pagination.walk',
    'MUST',
    'Every list can be walked to its end: nextCursor, when present, leads to another page, and no cursor repeats.',
    [
      q(
        ALL,
        'server/utilities/pagination#response-format',
        'An optional nextCursor field if more results exist',
      ),
    ],
    {
      reading:
        'A nextCursor that leads back to a page already seen never ends the list: "more results" that never come.',
    },
  ),
  r('pagination.invalid-cursor', 'SHOULD', 'A forged cursor is answered with error -32602.', [
    q(
      ALL,
      'server/utilities/pagination#error-handling',
      'Invalid cursors SHOULD result in an error with code -32602 (Invalid params).',
    ),
  ]),
  r(
    'pagination.stale-cursor',
    'SHOULD',
    'A cursor used again after its walk is served again or refused with -32602, nothing else.',
    [
      q(
        ALL,
        'server/utilities/pagination#error-handling',
        'Invalid cursors SHOULD result in an error with code -32602 (Invalid params).',
      ),
    ],
  ),

  // --- logging
  r(
    'logging.set-level',
    'MUST',
    'A server that declares logging answers logging/setLevel with an empty result.',
    [
      q([R1, R2], 'basic/lifecycle#operation', RESPECT_VERSION_LEGACY, 'MUST'),
      q([R3, R4], 'basic/lifecycle#operation', RESPECT_VERSION),
    ],
    {
      reading:
        'logging/setLevel is the method of the logging capability: a server that declares it and refuses the method broke the negotiation (see capabilities.declared-implemented).',
    },
  ),
  r(
    'logging.invalid-level',
    'SHOULD',
    'logging/setLevel with a level that does not exist is answered with error -32602.',
    [
      q(
        LEGACY,
        'server/utilities/logging#error-handling',
        'Servers SHOULD return standard JSON-RPC errors for common failure cases: - Invalid log level: -32602 (Invalid params)',
      ),
    ],
  ),
  r(
    'logging.level-respected',
    'SHOULD',
    'After logging/setLevel, the server sends no notifications/message below that level.',
    [
      q(
        LEGACY,
        'server/utilities/logging#setting-log-level',
        'To configure the minimum log level, clients MAY send a logging/setLevel request',
        'SHOULD',
      ),
    ],
    {
      reading:
        'The level the client sets is "the minimum log level": a message below it ignores the client\'s setting. The spec words no keyword for the server: held as a SHOULD.',
    },
  ),
  r(
    'logging.request-level',
    'MUST',
    'No notifications/message for a request without io.modelcontextprotocol/logLevel in its _meta, and none below the level it names.',
    [
      q(
        MODERN,
        'server/utilities/logging#per-request-log-level',
        'The server MUST NOT emit notifications/message for a request that does not include this field.',
      ),
    ],
  ),

  // --- progress, cancellation, subscriptions (server side)
  r(
    'progress.active-token',
    'MUST',
    'Progress notifications reference only a progressToken the client gave in a request.',
    [
      q(LEGACY, 'basic/utilities/progress#behavior-requirements', PROGRESS_TOKENS),
      q(MODERN, 'basic/patterns/progress#behavior-requirements', PROGRESS_TOKENS),
    ],
  ),
  r('progress.increasing', 'MUST', 'The progress value increases with each notification of a token.', [
    q(
      [R1],
      'basic/utilities/progress#behavior-requirements',
      'The progress value MUST increase with each notification, even if the total is unknown.',
    ),
    q([R2, R3, R4], 'basic/utilities/progress#progress-flow', PROGRESS_INCREASES),
    q(MODERN, 'basic/patterns/progress#progress-flow', PROGRESS_INCREASES),
  ]),
  r(
    'progress.stops',
    'MUST',
    'No progress notification for a request comes after its response.',
    [
      q(LEGACY, 'basic/utilities/progress#behavior-requirements', PROGRESS_TOKENS),
      q(MODERN, 'basic/patterns/progress#behavior-requirements', PROGRESS_TOKENS),
    ],
    { reading: 'Once answered, a request is no "in-progress operation".' },
  ),
  r(
    'cancellation.no-response',
    'SHOULD',
    'A request cancelled while still in progress gets no successful result afterwards: no response, or an error.',
    [
      q(
        LEGACY,
        'basic/utilities/cancellation#behavior-requirements',
        `Receivers of cancellation notifications ${CANCEL_NO_RESPONSE}`,
      ),
      q(
        MODERN,
        'basic/transports/stdio#cancellation',
        'Servers SHOULD stop work on a cancelled request as soon as practical and MUST NOT send any further messages for it.',
        'MUST',
      ),
    ],
  ),
  r(
    'cancellation.graceful',
    'MUST',
    'Cancellations (of a request in progress, of an unknown request) leave the server serving: the next request is answered.',
    [
      q(LEGACY, 'basic/utilities/cancellation#timing-considerations', RACES),
      q(MODERN, 'basic/patterns/cancellation#timing-considerations', RACES),
    ],
  ),
  r(
    'subscriptions.updated-uri',
    'SHOULD',
    'notifications/resources/updated names a resource the client subscribed to.',
    [
      q(
        LEGACY,
        'server/resources#subscriptions',
        'The protocol supports optional subscriptions to resource changes.',
        'SHOULD',
      ),
    ],
    {
      reading:
        'An update for a URI the client never subscribed to is a notification it did not ask for; the spec words no keyword.',
    },
  ),
  r(
    'subscriptions.acknowledged',
    'MUST',
    'The first message of a subscriptions/listen stream is notifications/subscriptions/acknowledged, carrying the subscription id and a subset of the requested filter.',
    [
      q(
        MODERN,
        'basic/patterns/subscriptions#acknowledgment',
        "The server MUST send notifications/subscriptions/acknowledged as the first message carrying the subscription's ID in _meta under io.modelcontextprotocol/subscriptionId, and MUST NOT send any notification on the subscription before it.",
      ),
    ],
  ),
  r(
    'subscriptions.requested-only',
    'MUST',
    'A listen stream carries only the notification types (and resource URIs) the client asked for.',
    [
      q(
        MODERN,
        'basic/patterns/subscriptions',
        'The server MUST NOT send notification types the client has not explicitly requested.',
      ),
    ],
  ),
  r(
    'subscriptions.subscription-id',
    'MUST',
    'Every notification on a listen stream carries _meta io.modelcontextprotocol/subscriptionId equal to the id of the subscriptions/listen request.',
    [
      q(
        MODERN,
        'basic/index#meta',
        'On notifications delivered via a subscriptions/listen stream, the server MUST include io.modelcontextprotocol/subscriptionId in _meta',
      ),
    ],
  ),

  // --- the 2026-07-28 envelope
  r(
    'envelope.result-type',
    'MUST',
    'Every result carries resultType ("complete", "input_required", or an extension\'s value the client asked for).',
    [
      q(
        MODERN,
        'basic/index#responses',
        'The result MUST include a resultType field to indicate the type of the result.',
      ),
    ],
  ),
  r('envelope.server-info', 'SHOULD', 'Results carry _meta["io.modelcontextprotocol/serverInfo"].', [
    q(
      MODERN,
      'basic/index#meta',
      "Servers SHOULD include the following io.modelcontextprotocol/* field in every result's _meta",
    ),
  ]),

  // --- caching (2026-07-28)
  r(
    'caching.fields',
    'MUST',
    'Every cacheable result (server/discover, lists, resources/read) carries ttlMs (an integer >= 0) and cacheScope ("public" or "private").',
    [
      q(
        MODERN,
        'server/utilities/caching#cacheable-results',
        'Servers MUST include caching hints on results with resultType: "complete" returned by the following operations',
      ),
    ],
  ),
  r('caching.same-scope', 'MUST', 'Every page of one list carries the same cacheScope.', [
    q(
      MODERN,
      'server/utilities/caching',
      'Servers MUST apply the same cacheScope to all response pages for a given list request.',
    ),
  ]),

  // --- the Skills extension (SEP-2640), for a server that declares it (in any revision)
  r(
    'skills.list',
    'MUST',
    'A server that declares the Skills extension answers skills/list with its skills: every page a result with a skills array.',
    [
      q(
        ALL,
        `${SKILLS_SEP}#enumeration-via-skillslist`,
        'A server declaring the io.modelcontextprotocol/skills extension MUST implement the skills/list method, which returns the skills it serves.',
      ),
    ],
  ),
  r(
    'skills.get',
    'MUST',
    "skills/get answers the SKILL.md URI of a listed skill with that skill's entry (the same uri).",
    [
      q(
        ALL,
        `${SKILLS_SEP}#retrieval-via-skillsget`,
        'A server declaring the io.modelcontextprotocol/skills extension MUST also implement the skills/get method, which returns the entry for a single skill named by its URI',
      ),
    ],
  ),
  r(
    'skills.get-unlisted',
    'MUST',
    'skills/get answers for a skill the server serves that skills/list leaves out (a listing may be partial).',
    [
      q(
        ALL,
        `${SKILLS_SEP}#retrieval-via-skillsget`,
        'A server MUST answer for every skill it serves, whether or not that skill appears in its skills/list result.',
      ),
    ],
    {
      reading:
        "The skills a listing leaves out are found among the server's resources: a resources/list entry skill://<skill-path>/SKILL.md (the resource mapping's URI of a skill's SKILL.md) that no skills/list entry names is taken for a skill the server serves.",
    },
  ),
  r('skills.get-unknown', 'MUST', 'skills/get of a URI that names no skill is refused with error -32602.', [
    q(
      ALL,
      `${SKILLS_SEP}#retrieval-via-skillsget`,
      'If the URI does not identify a skill the server serves, the server MUST return error -32602 (Invalid params)',
    ),
  ]),
  r(
    'skills.uri-scheme',
    'SHOULD',
    "Skills are served under the skill:// scheme (skill://<skill-path>/SKILL.md and the skill's files beside it).",
    [
      q(
        ALL,
        `${SKILLS_SEP}#resource-mapping`,
        'Servers SHOULD use the skill:// URI scheme, under which the resource URI has the form:',
      ),
    ],
  ),
  r(
    'skills.uri-name',
    'MUST',
    "An entry's uri is <scheme>://<skill-path>/SKILL.md whose last skill-path segment is its frontmatter's name.",
    [
      q(
        ALL,
        `${SKILLS_SEP}#frontmatter`,
        "The final <skill-path> segment of the entry's uri MUST equal frontmatter.name, per Resource Mapping.",
      ),
    ],
    {
      reading:
        'A uri that does not end in /SKILL.md after a skill path has no final <skill-path> segment to equal the name, so it breaks the rule too: the entry\'s uri "is the full resource URI of the skill\'s SKILL.md".',
    },
  ),
  r(
    'skills.name',
    'MUST',
    "A skill's name (its URI's last skill-path segment) keeps the Agent Skills naming rules: 1-64 lowercase letters, digits and hyphens, no leading, trailing or doubled hyphen.",
    [
      q(
        ALL,
        `${SKILLS_SEP}#resource-mapping`,
        "The final <skill-path> segment, being the skill name, MUST satisfy the Agent Skills specification's naming rules.",
      ),
    ],
  ),
  r(
    'skills.frontmatter',
    'MUST',
    'Every SKILL.md begins with YAML frontmatter that keeps the Agent Skills rules: a name and a non-empty description of at most 1024 characters; compatibility at most 500 characters; license and allowed-tools strings; metadata string values.',
    [
      q(
        ALL,
        `${SKILLS_SEP}#skill-format`,
        'A skill served over MCP MUST conform to the Agent Skills specification.',
      ),
    ],
  ),
  r(
    'skills.frontmatter-identical',
    'MUST',
    "An entry's frontmatter is the frontmatter of the SKILL.md it describes, field by field.",
    [
      q(
        ALL,
        `${SKILLS_SEP}#frontmatter`,
        'The frontmatter object MUST be identical in content to the frontmatter of the SKILL.md it describes.',
      ),
    ],
  ),
  r(
    'skills.resources',
    'MUST',
    'Every entry has resources: an array of {uri, digest, size} (the digest sha256:<64 lowercase hex digits>), or "dynamic".',
    [
      q(
        ALL,
        `${SKILLS_SEP}#resources`,
        'resources is REQUIRED on every skill entry and takes one of two forms',
      ),
    ],
    {
      reading:
        'The digest\'s form is the one Integrity and verification gives ("formatted as sha256:{hex} where {hex} is 64 lowercase hexadecimal characters"): a digest of another form is no digest a host can verify against.',
    },
  ),
  r(
    'skills.resources-complete',
    'MUST',
    "An entry's resources list its SKILL.md and each file once; with directoryRead, every file the skill's directories hold is among them.",
    [
      q(
        ALL,
        `${SKILLS_SEP}#resources`,
        "When present, resources MUST be complete: it lists every file of the skill, each exactly once, including an entry matching the skill's top-level uri",
      ),
    ],
    {
      reading:
        "The checker sees a skill's files through resources/directory/read where the server declares directoryRead: a file a directory read lists under the skill's root that the entry lacks shows the entry incomplete (a check runs in seconds, against a server whose skills are not expected to change meanwhile).",
    },
  ),
  r(
    'skills.resources-within',
    'MUST',
    "Each uri of an entry's resources is its SKILL.md or a file under the skill's root (skill://<skill-path>/...).",
    [
      q(
        ALL,
        `${SKILLS_SEP}#resources`,
        "Each uri MUST be the skill's SKILL.md or a file within the skill's directory.",
      ),
    ],
  ),
  r('skills.size', 'MUST', 'Each file read back has the byte length its entry gives as size.', [
    q(
      ALL,
      `${SKILLS_SEP}#resources`,
      "Each entry MUST carry size: the length in bytes of the file's raw content — the same bytes the digest covers.",
    ),
  ]),
  r(
    'skills.digest',
    'MUST',
    'Each file read back hashes (SHA-256 of its raw bytes) to the digest its entry gives.',
    [
      q(
        ALL,
        `${SKILLS_SEP}#integrity-and-verification`,
        "Each entry in a skill's resources carries the digest of the file at its uri.",
      ),
    ],
    {
      reading:
        'The sentence has no keyword: it says what the digest is. A host "MUST verify the content against that entry\'s digest" and "MUST NOT use the unverified content", so a digest that is not the file\'s makes the skill unusable on every conforming host: it is judged as a MUST.',
    },
  ),
  r('skills.skill-md-mime', 'SHOULD', 'A SKILL.md is served with mimeType text/markdown.', [
    q(ALL, `${SKILLS_SEP}#resource-metadata`, 'mimeType SHOULD be text/markdown.'),
  ]),
  r(
    'skills.skill-md-name',
    'SHOULD',
    "A SKILL.md's resource (resources/list) is named with its frontmatter's name.",
    [
      q(
        ALL,
        `${SKILLS_SEP}#resource-metadata`,
        'name SHOULD be set from the name field of the SKILL.md YAML frontmatter.',
      ),
    ],
  ),
  r(
    'skills.skill-md-description',
    'SHOULD',
    "A SKILL.md's resource (resources/list) has its frontmatter's description.",
    [
      q(
        ALL,
        `${SKILLS_SEP}#resource-metadata`,
        'description SHOULD be set from the description field of the SKILL.md YAML frontmatter.',
      ),
    ],
  ),
  r(
    'skills.limits',
    'SHOULD',
    'No skill has more than 512 files or more than 16 MiB in all (the sizes of its resources).',
    [
      q(
        ALL,
        `${SKILLS_SEP}#limits`,
        'Servers SHOULD NOT serve a skill that exceeds either limit; a skill that does is not guaranteed to be loadable by any conforming host.',
      ),
    ],
  ),
  r('skills.names-unique', 'SHOULD', 'No two skills of the listing share a name.', [
    q(
      ALL,
      `${SKILLS_SEP}#names`,
      "Within a server's listing, names SHOULD be unique, but they are not guaranteed to be",
    ),
  ]),
  r(
    'skills.directory-read',
    'MUST',
    "With directoryRead, resources/directory/read answers each directory of a listed skill (its root and every folder of its files) with its children: the entry's files in it, and its folders as inode/directory resources.",
    [
      q(
        ALL,
        `${SKILLS_SEP}#resourcesdirectoryread`,
        'A server that declares directoryRead MUST support the method for every directory within the skill namespaces it serves as individual files.',
      ),
    ],
    {
      reading:
        "The directories are those a listed entry's resources imply (the skill's root, skill://<skill-path>, and each folder a listed file is in); supporting the method is answering with the directory's children, as \"the result contains every direct child of the directory\".",
    },
  ),
  r(
    'skills.directory-not-directory',
    'MUST',
    'resources/directory/read of a file (a SKILL.md) or of a URI that names nothing is refused with error -32602.',
    [
      q(
        ALL,
        `${SKILLS_SEP}#resourcesdirectoryread`,
        'If the URI does not exist, or exists but is not a directory resource, the server MUST return error -32602 (Invalid params)',
      ),
    ],
  ),

  // --- stdio
  r(
    'stdio.messages-only',
    'MUST',
    'The server writes nothing to stdout that is not a valid MCP message, one per line.',
    [
      q(
        LEGACY,
        'basic/transports#stdio',
        'The server MUST NOT write anything to its stdout that is not a valid MCP message.',
      ),
      q(
        MODERN,
        'basic/transports/stdio',
        'The server MUST NOT write anything to its stdout that is not a valid MCP message.',
      ),
    ],
    { transport: 'stdio' },
  ),
  r(
    'stdio.exit-on-eof',
    'SHOULD',
    'The server exits when the client closes its stdin (the first shutdown step), without having to be signalled.',
    [
      q(
        LEGACY,
        'basic/lifecycle#stdio',
        'For the stdio transport, the client SHOULD initiate shutdown by: 1. First, closing the input stream to the child process (the server)',
        'HARDENING',
      ),
      q(
        MODERN,
        'basic/transports/stdio#shutdown',
        'Servers SHOULD exit promptly when their standard input is closed or reads return end-of-file.',
      ),
    ],
    {
      transport: 'stdio',
      reading:
        "Before 2026-07-28 the sentence is the client's: closing stdin is the first step, signals the next. A server that waits for the signal is advice there; from 2026-07-28 on it is the server's SHOULD.",
    },
  ),

  // --- Streamable HTTP
  r(
    'http.content-type',
    'MUST',
    'A request is answered with Content-Type application/json or text/event-stream.',
    [
      q([R4, R3], SEND_RECEIVE_LEGACY, CONTENT_TYPE),
      q([R2], SEND_RECEIVE_LEGACY, CONTENT_TYPE_2025_03),
      q(
        MODERN,
        SEND_RECEIVE,
        'If the body is a JSON-RPC request, the server MUST return either Content-Type: application/json (a single JSON object) or Content-Type: text/event-stream (an SSE response stream).',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.notification-202',
    'MUST',
    'A POSTed notification the server accepts is answered with 202 Accepted and no body.',
    [
      q(
        STREAMABLE_LEGACY,
        SEND_RECEIVE_LEGACY,
        'If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.session-id',
    'MUST',
    'An Mcp-Session-Id, when the server assigns one, holds only visible ASCII characters.',
    [
      q(
        STREAMABLE_LEGACY,
        SESSIONS,
        'The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E).',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.unknown-session',
    'MUST',
    'A request naming a session id the server does not know is answered with 404 Not Found.',
    [
      q(
        STREAMABLE_LEGACY,
        SESSIONS,
        'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
      ),
    ],
    {
      transport: 'http',
      reading:
        'The checker names a session id the server never issued: to the server, a session that does not exist is one that ended. A server that answers 400 for it leaves the client no way to tell it must start a new session.',
    },
  ),
  r(
    'http.missing-session',
    'SHOULD',
    'A server that requires a session id answers a request without Mcp-Session-Id (other than initialize) with 400 Bad Request (one that serves such a request does not require it).',
    [
      q(
        [R3, R2],
        SESSIONS,
        'Servers that require a session ID SHOULD respond to requests without an Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request.',
      ),
      q(
        [R4],
        SESSIONS,
        'Servers that require a session ID SHOULD respond to requests without an MCP-Session-Id header (other than initialization) with HTTP 400 Bad Request.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.protocol-version-400',
    'MUST',
    'A request whose MCP-Protocol-Version header names an invalid or unsupported version is answered with 400 Bad Request.',
    [
      q(
        [R4, R3],
        'basic/transports#protocol-version-header',
        'If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.unknown-method-404',
    'MUST',
    'An unknown method is answered with HTTP 404 and a JSON-RPC -32601 body.',
    [
      q(
        MODERN,
        'basic/transports/streamable-http#protocol-version-header',
        'If the server does not implement the requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601 (Method not found).',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.unsupported-version-400',
    'MUST',
    'An unsupported protocol version is answered with HTTP 400 and a JSON-RPC -32022 body.',
    [
      q(
        MODERN,
        'basic/transports/streamable-http#protocol-version-header',
        'it MUST respond with 400 Bad Request and an UnsupportedProtocolVersionError listing its supported versions',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.header-mismatch',
    'MUST',
    'An Mcp-Method header that does not match the body is answered with HTTP 400 and a JSON-RPC -32020 body.',
    [
      q(
        MODERN,
        'basic/transports/streamable-http#server-validation',
        'Servers MUST reject requests with a 400 Bad Request HTTP status and JSON-RPC error code -32020 (HeaderMismatch) if any validation fails.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.get-405',
    'SHOULD',
    'A server that speaks only 2026-07-28 answers GET on the MCP endpoint with 405 Method Not Allowed (one that also speaks older revisions serves their GET stream).',
    [
      q(
        MODERN,
        'basic/transports/streamable-http#backward-compatibility',
        'A server that supports only this revision and receives such traffic from an older client SHOULD respond as follows',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.get-stream',
    'MUST',
    'A GET on the endpoint (with the session id) is answered with Content-Type text/event-stream, or with 405 Method Not Allowed.',
    [
      q(
        STREAMABLE_LEGACY,
        'basic/transports#listening-for-messages-from-the-server',
        'The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.delete-session',
    'MUST',
    'A DELETE naming the session ends it (2xx; afterwards requests naming it get 404 Not Found), or is refused with 405 Method Not Allowed.',
    [
      q(
        STREAMABLE_LEGACY,
        SESSIONS,
        'The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.delete-405',
    'SHOULD',
    'A server that speaks only 2026-07-28 answers DELETE on the MCP endpoint with 405 Method Not Allowed (one that also speaks older revisions ends their sessions).',
    [
      q(
        MODERN,
        'basic/transports/streamable-http#backward-compatibility',
        'A server that supports only this revision and receives such traffic from an older client SHOULD respond as follows',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.sse-framing',
    'MUST',
    'An event stream is well-formed SSE: every line a comment or an event, data, id or retry field; every event a default (message) event whose data is one JSON-RPC message (or empty, to prime a reconnection).',
    [
      q([R3], SEND_RECEIVE_LEGACY, CONTENT_TYPE),
      q([R2], SEND_RECEIVE_LEGACY, CONTENT_TYPE_2025_03),
      q(
        [R4],
        SEND_RECEIVE_LEGACY,
        'The server SHOULD immediately send an SSE event consisting of an event ID and an empty data field in order to prime the client to reconnect',
        'MUST',
      ),
      q(
        MODERN,
        SEND_RECEIVE,
        'If the body is a JSON-RPC request, the server MUST return either Content-Type: application/json (a single JSON object) or Content-Type: text/event-stream (an SSE response stream).',
      ),
    ],
    {
      transport: 'http',
      reading:
        'An SSE stream is one the SSE standard reads: a line a client ignores is a message lost, so framing is held to the MUST of answering with an event stream.',
    },
  ),
  r(
    'http.event-ids-unique',
    'MUST',
    'SSE event ids, when the server gives them, are unique across all the streams of a session.',
    [
      q(
        STREAMABLE_LEGACY,
        RESUME,
        'If present, the ID MUST be globally unique across all streams within that session',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.resume',
    'MAY',
    'A server that gives its SSE events ids replays, on a GET with Last-Event-ID, the messages of that stream sent after that event.',
    [
      q(
        STREAMABLE_LEGACY,
        RESUME,
        'The server MAY use this header to replay messages that would have been sent after the last event ID, on the stream that was disconnected, and to resume the stream from that point.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.resume-same-stream',
    'MUST',
    'A stream resumed with Last-Event-ID replays only messages of the stream that event was on, never those of another stream.',
    [
      q(
        STREAMABLE_LEGACY,
        RESUME,
        'The server MUST NOT replay messages that would have been delivered on a different stream.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.session-id-entropy',
    'SHOULD',
    'Session ids are globally unique and cryptographically secure: distinct sessions get ids that differ in at least 16 characters (no counters, no short ids).',
    [
      q(
        STREAMABLE_LEGACY,
        SESSIONS,
        'The session ID SHOULD be globally unique and cryptographically secure (e.g., a securely generated UUID, a JWT, or a cryptographic hash).',
      ),
    ],
    { transport: 'http' },
  ),

  // --- the HTTP+SSE transport (2024-11-05), where the target URL serves it
  r(
    'http.sse-endpoint-event',
    'MUST',
    'A GET on an HTTP+SSE endpoint opens an event stream whose first event is an endpoint event, with the URI to POST messages to.',
    [
      q(
        [R1],
        'basic/transports#http-with-sse',
        'When a client connects, the server MUST send an endpoint event containing a URI for the client to use for sending messages.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.sse-post-accepted',
    'MUST',
    'A message POSTed to the URI the endpoint event named is accepted (2xx).',
    [
      q(
        [R1],
        'basic/transports#http-with-sse',
        'All subsequent client messages MUST be sent as HTTP POST requests to this endpoint.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'http.sse-messages-on-stream',
    'MUST',
    'The server sends its messages, the answer to a POSTed request included, as message events on the stream.',
    [
      q(
        [R1],
        'basic/transports#http-with-sse',
        'Server messages are sent as SSE message events, with the message content encoded as JSON in the event data.',
      ),
    ],
    {
      transport: 'http',
      reading:
        'The sentence has no keyword; it is the only way the transport delivers an answer, so a server that answers otherwise is not speaking it.',
    },
  ),

  // --- security a peer can show
  r(
    'security.origin',
    'MUST',
    'A local server refuses a request with a foreign Origin header: with 403 Forbidden from 2025-11-25 on, with an HTTP error status before.',
    [
      q([R3, R2], 'basic/transports#security-warning', ORIGIN),
      q([R4], 'basic/transports#security-warning', ORIGIN_403),
      q(MODERN, 'basic/transports/streamable-http', ORIGIN_403),
    ],
    {
      transport: 'http',
      reading:
        'Before 2025-11-25 the spec says "validate" and names no status: a foreign Origin served is the failure; any 4xx refusal keeps the rule.',
    },
  ),
  r(
    'security.host',
    'HARDENING',
    'A local server refuses a request whose Host header names a foreign host (a DNS-rebinding page, which sends no Origin on a GET) with 403 Forbidden.',
    [],
    {
      transport: 'http',
      pages: [
        { revisions: STREAMABLE_LEGACY, section: 'basic/transports#security-warning' },
        { revisions: MODERN, section: 'basic/transports/streamable-http' },
      ],
      reading:
        'The spec names the Origin check only. A DNS-rebinding page reaches a local server under its own name, and its GET carries no Origin: only the Host shows it. Advice, not a rule of the spec.',
    },
  ),
  r(
    'security.body-limit',
    'HARDENING',
    'A request body of 16 MiB is refused with an HTTP error status (413 Payload Too Large, or another 4xx), not served, not a crash or a hang; the server goes on serving.',
    [],
    {
      transport: 'http',
      pages: [
        { revisions: STREAMABLE_LEGACY, section: SEND_RECEIVE_LEGACY },
        { revisions: MODERN, section: SEND_RECEIVE },
      ],
      reading: 'No revision sets a size limit: advice against a server that a single request can exhaust.',
    },
  ),

  // --- authorization discovery (a protected server: one that answers a request without a token with 401)
  r(
    'authorization.challenge',
    'MUST',
    'A protected server answers a request without a token with 401 Unauthorized and a WWW-Authenticate Bearer challenge.',
    AUTHORIZATION_LOCATION,
    { transport: 'http' },
  ),
  r(
    'authorization.metadata-location',
    'MUST',
    'A protected server tells where its Protected Resource Metadata is: resource_metadata in the 401 challenge (2025-06-18), or that or the well-known URI (2025-11-25 on).',
    AUTHORIZATION_LOCATION,
    { transport: 'http' },
  ),
  r(
    'authorization.metadata',
    'MUST',
    "The Protected Resource Metadata (RFC 9728) is a JSON object whose resource is a URL of the server's origin and whose authorization_servers lists at least one authorization server.",
    [
      q(
        [R3],
        'basic/authorization#authorization-server-location',
        'The Protected Resource Metadata document returned by the MCP server MUST include the authorization_servers field containing at least one authorization server.',
      ),
      q(
        [R4],
        'basic/authorization#authorization-server-location',
        'The Protected Resource Metadata document returned by the MCP server MUST include the authorization_servers field containing at least one authorization server.',
      ),
      q(
        MODERN,
        'basic/authorization/authorization-server-discovery',
        'The Protected Resource Metadata document returned by the MCP server MUST include the authorization_servers field containing at least one authorization server.',
      ),
    ],
    { transport: 'http' },
  ),

  // --- clients (client mode: scripted servers in front of the client under test)
  r(
    'client.messages-valid',
    'MUST',
    'Every message the client sends is valid against the official JSON Schema of the revision in use.',
    [q(ALL, 'basic/index#schema', SOURCE_OF_TRUTH)],
    { reading: 'As for schema.server-messages: a message the schema refuses is no message of the protocol.' },
  ),
  r(
    'client.initialize-first',
    'MUST',
    'The first request of a legacy connection is initialize (ping aside), with protocolVersion, capabilities and clientInfo.',
    [
      q(
        LEGACY,
        'basic/lifecycle#initialization',
        'The initialization phase MUST be the first interaction between client and server.',
      ),
    ],
  ),
  r(
    'client.initialized',
    'MUST',
    'After a successful initialize the client sends notifications/initialized before any request other than ping.',
    [
      q(
        LEGACY,
        'basic/lifecycle#initialization',
        'After successful initialization, the client MUST send an initialized notification to indicate it is ready to begin normal operations',
      ),
    ],
  ),
  r(
    'client.version-fallback',
    'MUST',
    'When initialize is answered with an older version the client supports, it goes on in that version (its MCP-Protocol-Version header names it); if it does not support it, it disconnects.',
    [
      q(
        [R3],
        'basic/transports#protocol-version-header',
        'If using HTTP, the client MUST include the MCP-Protocol-Version: <protocol-version> HTTP header on all subsequent requests to the MCP server',
      ),
      q([R2, R1], 'basic/lifecycle#operation', RESPECT_VERSION_LEGACY, 'MUST'),
    ],
    {
      reading:
        'Before 2025-06-18 "respect the negotiated protocol version" is a SHOULD; a client that goes on in another version than the negotiated one is held to it as a MUST, since the server then reads its messages in the wrong revision.',
    },
  ),
  r(
    'client.legacy-fallback',
    'MUST',
    'A client that speaks 2026-07-28 and older revisions falls back to initialize when the server does not speak 2026-07-28.',
    [
      q(
        MODERN,
        'basic/versioning',
        'A server that wishes to support both legacy clients (which expect an initialize handshake) and modern clients (which use per-request metadata) MAY implement both behaviors.',
        'MUST',
      ),
    ],
    {
      reading:
        'A client that claims the older revisions must reach a server that speaks only them; the versioning page describes the fallback without a keyword for the client.',
    },
  ),
  r(
    'client.envelope',
    'MUST',
    'Every request carries _meta io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities.',
    [q(MODERN, 'basic/index#meta', 'fields marked as required MUST be included on every request.')],
  ),
  r(
    'client.protocol-version-header',
    'MUST',
    'Every HTTP request after the handshake carries MCP-Protocol-Version naming the revision in use (on 2026-07-28: the one in _meta).',
    [
      q(
        [R4, R3],
        'basic/transports#protocol-version-header',
        'If using HTTP, the client MUST include the MCP-Protocol-Version: <protocol-version> HTTP header on all subsequent requests to the MCP server',
      ),
      q(
        MODERN,
        'basic/transports/streamable-http#protocol-version-header',
        'Every POST request to the MCP endpoint MUST include an MCP-Protocol-Version header.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'client.method-header',
    'MUST',
    'Every request carries Mcp-Method equal to its method, and tools/call, prompts/get and resources/read carry Mcp-Name equal to the name or URI.',
    [q(MODERN, SEND_RECEIVE, 'The client MUST include the request metadata headers on each POST request.')],
    { transport: 'http' },
  ),
  r(
    'client.accept',
    'MUST',
    'Every POST lists both application/json and text/event-stream in its Accept header.',
    [
      q(
        STREAMABLE_LEGACY,
        SEND_RECEIVE_LEGACY,
        'The client MUST include an Accept header, listing both application/json and text/event-stream as supported content types.',
      ),
      q(
        MODERN,
        SEND_RECEIVE,
        'The client MUST include an Accept header listing both application/json and text/event-stream as supported content types.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'client.session-id',
    'MUST',
    'Once the server assigned an Mcp-Session-Id, every later request of the session carries it.',
    [
      q(
        [R3, R2],
        SESSIONS,
        'If an Mcp-Session-Id is returned by the server during initialization, clients using the Streamable HTTP transport MUST include it in the Mcp-Session-Id header on all of their subsequent HTTP requests.',
      ),
      q(
        [R4],
        SESSIONS,
        'If an MCP-Session-Id is returned by the server during initialization, clients using the Streamable HTTP transport MUST include it in the MCP-Session-Id header on all of their subsequent HTTP requests.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'client.reinitialize-on-404',
    'MUST',
    'A 404 to a request that carried a session id makes the client start a new session with initialize, without a session id.',
    [
      q(
        [R3, R2],
        SESSIONS,
        'When a client receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached.',
      ),
      q(
        [R4],
        SESSIONS,
        'When a client receives HTTP 404 in response to a request containing an MCP-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached.',
      ),
    ],
    { transport: 'http' },
  ),
  r('client.cursor-opaque', 'MUST', 'The client sends back only cursors the server issued, unchanged.', [
    q(
      ALL,
      'server/utilities/pagination#implementation-guidelines',
      'Clients MUST treat cursors as opaque tokens',
    ),
  ]),
  r(
    'client.elicitation',
    'MUST',
    'An elicitation is answered with accept, decline or cancel; accepted content satisfies the requested schema.',
    [q(STRUCTURED, 'basic/index#schema', SOURCE_OF_TRUTH)],
    {
      reading:
        "The schema types the ElicitResult: an action of accept, decline or cancel, and content of the requested schema's primitive types.",
    },
  ),
  r(
    'client.sampling',
    'MUST',
    'A sampling request the client declared it serves is answered with a message (role, content, model) or an error.',
    [q(ALL, 'basic/index#schema', SOURCE_OF_TRUTH)],
    { reading: 'The schema types the CreateMessageResult: role, content and model.' },
  ),
  r(
    'client.roots',
    'MUST',
    'A roots request the client declared it serves is answered with roots whose URIs are file:// URIs.',
    [q(ALL, 'client/roots#root', 'This MUST be a file:// URI in the current specification.')],
  ),
  r('client.ping', 'MUST', 'A ping from the server is answered promptly with an empty result.', [
    q(
      LEGACY,
      'basic/utilities/ping#behavior-requirements',
      'The receiver MUST respond promptly with an empty response',
    ),
  ]),
  r(
    'client.cancel',
    'SHOULD',
    'A request the client abandons (a timeout, the user stopping it) is cancelled with notifications/cancelled naming it.',
    [
      q(
        [R1],
        'basic/utilities/cancellation#cancellation-flow',
        'When a party wants to cancel an in-progress request, it sends a notifications/cancelled notification',
      ),
      q(
        [R2, R3, R4],
        'basic/lifecycle#timeouts',
        'the sender SHOULD issue a cancellation notification for that request and stop waiting for a response.',
      ),
    ],
    {
      reading:
        '2024-11-05 describes the cancellation without a keyword; held as the SHOULD later revisions made it.',
    },
  ),
  r(
    'client.cancel-stdio',
    'MUST',
    'Over stdio, a request the client abandons is cancelled with notifications/cancelled naming it.',
    [
      q(
        MODERN,
        'basic/transports/stdio#cancellation',
        "To cancel an in-flight request, the client MUST send a notifications/cancelled notification referencing the request's ID.",
      ),
    ],
    { transport: 'stdio' },
  ),
  r(
    'client.cancel-valid',
    'MUST',
    'A notifications/cancelled names a request the client sent in the same direction, and never initialize.',
    [
      q(
        LEGACY,
        'basic/utilities/cancellation#behavior-requirements',
        'Cancellation notifications MUST only reference requests that: - Were previously issued in the same direction',
      ),
      q(
        MODERN,
        'basic/patterns/cancellation#behavior-requirements',
        'Cancellation notifications MUST only reference requests that:',
      ),
    ],
  ),
  r(
    'client.sse-resume',
    'SHOULD',
    'When a response stream ends before its response, the client resumes it with GET and the Last-Event-ID of the last event it received.',
    [
      q(
        STREAMABLE_LEGACY,
        RESUME,
        'it SHOULD issue an HTTP GET to the MCP endpoint, and include the Last-Event-ID header to indicate the last event ID it received.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'client.sse-retry',
    'MUST',
    'After a server closed a stream that carried a retry field, the client waits that many milliseconds before reconnecting.',
    [
      q(
        [R4],
        SEND_RECEIVE_LEGACY,
        'The client MUST respect the retry field, waiting the given number of milliseconds before attempting to reconnect.',
      ),
    ],
    { transport: 'http' },
  ),
  r(
    'client.input-required',
    'MUST',
    'A request answered with input_required is retried with an inputResponses entry for every input request and the requestState given back unchanged.',
    [
      q(
        MODERN,
        'basic/patterns/mrtr',
        'If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that field when retrying the original request.',
      ),
    ],
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

/** The sentence a requirement rests on in one revision (none for a hardening rule without a source). */
export function sourceIn(requirement: Requirement, revision: Revision): Source | undefined {
  return requirement.sources.find((source) => source.revisions.includes(revision));
}

/** A requirement's level in one revision: its sentence's keyword there. */
export function levelIn(requirement: Requirement, revision: Revision): Level {
  return sourceIn(requirement, revision)?.level ?? requirement.level;
}

/** The spec page (with its anchor) a requirement rests on in one revision. */
export function sectionIn(requirement: Requirement, revision: Revision): string {
  const where = (pages: readonly Page[] = []) => pages.find((p) => p.revisions.includes(revision))?.section;
  return where(requirement.sources) ?? where(requirement.pages) ?? 'index';
}

/**
 * The spec page's address for a requirement in one revision: a page of that revision's own tree,
 * or, for an extension's rule, its SEP's page (one text for every revision).
 */
export function specUrl(requirement: Requirement, revision: Revision): string {
  return pageUrl(sectionIn(requirement, revision), revision);
}

/** The address of a cited page: `seps/<n>-<name>` is a SEP's page, anything else a page of the revision. */
export function pageUrl(section: string, revision: Revision): string {
  return section.startsWith('seps/')
    ? `https://modelcontextprotocol.io/${section}`
    : `https://modelcontextprotocol.io/specification/${revision}/${section}`;
}
