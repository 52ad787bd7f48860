/**
 * The console's own HTTP API, as data: what the page sends and what the Node side answers. Types
 * only, shared by the server (`src/console/`) and the page (`src/console/page/`), so neither can
 * drift from the other. Every route is under `/api/` and needs the console's token.
 *
 *   GET    /api/events?after=<seq>           server-sent events, one ConsoleEvent each (replayed from `after`)
 *   GET    /api/connections                  ConnectionSummary[]
 *   POST   /api/connections                  ConnectRequest → ConnectionSummary
 *   DELETE /api/connections/<id>             closes and forgets it
 *   POST   /api/connections/<id>/<op>        one operation (OperationRequests) → ApiAnswer
 */

import type { CheckEntry, CheckSummary } from '../check/results.js';
import type { SkillEntry } from '../extensions/skills/types.js';
import type {
  CallToolResult,
  CompleteParams,
  CompleteResult,
  ElicitParams,
  ElicitResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LoggingLevel,
  ReadResourceResult,
  Root,
  ServerCapabilities,
} from '../protocol/types.js';

/** The header the page sends its token in (GET routes also take `?token=`, for EventSource and links). */
export const TOKEN_HEADER = 'x-switchboard-console-token';

export type ConnectTarget =
  | {
      readonly kind: 'stdio';
      /** The program, run without a shell. */
      readonly command: string;
      readonly args?: readonly string[];
      readonly cwd?: string;
    }
  | {
      readonly kind: 'http';
      /** A Streamable HTTP endpoint (either era) or a legacy HTTP+SSE endpoint. */
      readonly url: string;
      readonly headers?: Readonly<Record<string, string>>;
    };

export type ConnectRequest = ConnectTarget & {
  /** `auto` (the default), `legacy` (initialize only) or one revision pinned. */
  readonly protocol?: string;
  /** A name for the page to show; defaults to the command or URL. */
  readonly label?: string;
};

export type ConnectionState = 'connecting' | 'open' | 'closed' | 'failed';

export interface ConnectionSummary {
  readonly id: string;
  readonly label: string;
  readonly target: ConnectTarget;
  readonly state: ConnectionState;
  /** Why it failed or closed, when it did not close on request. */
  readonly error?: string;
  readonly serverInfo?: Implementation;
  readonly instructions?: string;
  readonly capabilities?: ServerCapabilities;
  readonly era?: 'modern' | 'legacy';
  readonly revision?: string;
  /** `stdio`, `Streamable HTTP` or `HTTP+SSE`. */
  readonly transport?: string;
  /** Milliseconds from opening the transport to a negotiated connection. */
  readonly negotiationMs?: number;
  readonly roots: readonly Root[];
  readonly logLevel: LoggingLevel;
  /** Set when the server is a `switchboard gateway`: the servers behind it and their health. */
  readonly gateway?: GatewayView;
  /** The resource URIs the console follows for this page (`subscribe`), updates arrive as `notification` events. */
  readonly subscriptions: readonly string[];
}

/** One server behind a gateway, as the gateway's `/readyz` reports it. */
export interface UpstreamView {
  readonly name: string;
  /** `idle`, `starting`, `up`, `failing`, `circuit-open` or `stopped`. */
  readonly state: string;
  /** `stdio`, `http` or `sse`. */
  readonly transport?: string;
  readonly revision?: string;
  readonly lastError?: string;
  readonly restarts?: number;
  readonly sessions?: number;
}

/** What a gateway says about the servers behind it (its `/readyz`, read by the console's Node side). */
export interface GatewayView {
  /** Where it was read. */
  readonly healthUrl: string;
  /** Milliseconds since the epoch. */
  readonly checkedAt: number;
  /** Every eagerly started upstream is up. */
  readonly ready?: boolean;
  readonly upstreams: readonly UpstreamView[];
  /** Between an upstream's name and its tools' and prompts' names: `<server><separator><name>`. */
  readonly separator?: string;
  /** Tools held back until approved (changed since pinned). */
  readonly heldTools?: readonly string[];
  /** Why the health could not be read (a gateway over stdio has none to read). */
  readonly error?: string;
}

/** A question the server asked that waits for the person at the page. */
export type Question =
  | { readonly id: string; readonly kind: 'elicitation'; readonly params: ElicitParams }
  | { readonly id: string; readonly kind: 'sampling'; readonly params: Record<string, unknown> };

interface EventBase {
  /** Increases by one per event; the page resumes with `after=<last seq>`. */
  readonly seq: number;
  /** Milliseconds since the epoch. */
  readonly at: number;
}

export type ConsoleEvent = EventBase &
  (
    | { readonly kind: 'connection'; readonly connection: ConnectionSummary }
    | { readonly kind: 'removed'; readonly connectionId: string }
    | {
        readonly kind: 'trace';
        readonly connectionId: string;
        /** `out`: the console's client sent it; `in`: the server did. */
        readonly direction: 'out' | 'in';
        readonly message: unknown;
      }
    | {
        readonly kind: 'log';
        readonly connectionId: string;
        readonly level: LoggingLevel;
        readonly logger?: string;
        readonly data: unknown;
      }
    | { readonly kind: 'stderr'; readonly connectionId: string; readonly text: string }
    /** What a running `check` is doing, one line at a time. */
    | { readonly kind: 'check-progress'; readonly connectionId: string; readonly line: string }
    | {
        readonly kind: 'progress';
        readonly connectionId: string;
        readonly callId: string;
        readonly progress: number;
        readonly total?: number;
        readonly message?: string;
      }
    | { readonly kind: 'question'; readonly connectionId: string; readonly question: Question }
    /** The question was answered, or the server withdrew it. */
    | { readonly kind: 'question-closed'; readonly connectionId: string; readonly questionId: string }
    | {
        readonly kind: 'notification';
        readonly connectionId: string;
        readonly method: string;
        readonly params: unknown;
      }
  );

/** What each operation (`POST /api/connections/<id>/<op>`) takes and gives. */
export interface Operations {
  tools: { request: Record<string, never>; result: ListToolsResult };
  resources: {
    request: Record<string, never>;
    result: {
      resources: ListResourcesResult['resources'];
      resourceTemplates: ListResourceTemplatesResult['resourceTemplates'];
    };
  };
  prompts: { request: Record<string, never>; result: ListPromptsResult };
  /** `callId` names the call for `cancel` and for its progress events. */
  call: {
    request: { name: string; arguments?: Record<string, unknown>; callId: string };
    result: CallToolResult;
  };
  cancel: { request: { callId: string }; result: { cancelled: boolean } };
  read: { request: { uri: string }; result: ReadResourceResult };
  /** The server's skills (`skills/list`); none when it does not declare the Skills extension. */
  skills: { request: Record<string, never>; result: { skills: SkillEntry[] } };
  /** A skill's file, read and verified against its entry (size, digest, SKILL.md frontmatter). */
  'skill-file': {
    request: { uri: string };
    result: { uri: string; mimeType?: string; text?: string; size: number };
  };
  /**
   * Follows a resource: `resources/subscribe` on a legacy connection, a `subscriptions/listen`
   * stream naming it on 2026-07-28. Each change arrives as a `notifications/resources/updated`
   * notification event. Fails when the server does not offer subscriptions to it.
   */
  subscribe: { request: { uri: string }; result: { uri: string } };
  unsubscribe: { request: { uri: string }; result: { unsubscribed: boolean } };
  prompt: { request: { name: string; arguments?: Record<string, string> }; result: GetPromptResult };
  complete: { request: CompleteParams; result: CompleteResult };
  /** Reads the gateway's health again (gateway connections only). */
  gateway: { request: Record<string, never>; result: GatewayView };
  'log-level': { request: { level: LoggingLevel }; result: Record<string, never> };
  roots: { request: { roots: Root[] }; result: Record<string, never> };
  answer: {
    request: { questionId: string; result: ElicitResult | Record<string, unknown> };
    result: Record<string, never>;
  };
  /**
   * `switchboard check` on this connection's target (a server of its own: a stdio command is started
   * again). Without `revisions`, every revision, as the CLI does.
   */
  check: { request: { revisions?: string[]; callTools?: boolean }; result: CheckResult };
}

/** The checker's report (`switchboard check --json`), the fields the page shows. */
export interface CheckResult {
  readonly target: string;
  readonly server?: { readonly name: string; readonly version: string };
  readonly durationMs: number;
  readonly revisions: readonly {
    readonly revision: string;
    readonly supported: boolean;
    readonly note: string;
  }[];
  readonly summary: CheckSummary;
  readonly checks: readonly CheckEntry[];
}

export type OperationName = keyof Operations;

/** An operation's answer: the MCP result, or why there is none (a protocol error, a refused call). */
export type ApiAnswer<T> =
  | { readonly ok: true; readonly result: T }
  | { readonly ok: false; readonly error: ApiError };

export interface ApiError {
  readonly message: string;
  /** The JSON-RPC error code, when the server answered with an error. */
  readonly code?: number | string;
  readonly data?: unknown;
}
