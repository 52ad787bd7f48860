/**
 * What the gateway tells operators: Prometheus metrics (`/metrics`, with prom-client) and
 * OpenTelemetry traces through `@opentelemetry/api` alone — a span per downstream request, a child
 * span per upstream call. Without an SDK registered by the application the API's tracer records
 * nothing, so users who do not trace pay for no exporter.
 *
 * On the per-call path the figures are plain numbers on a series found once per (upstream, method)
 * and handed to the registry when scraped (call-metrics.ts): prom-client's counters and histograms
 * hash their label object on every call, pre-bound children included.
 */
import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { RequestContext } from '../server/context.js';
import { errorMessage } from '../util/guards.js';
import { CallMetrics, type CallSeries } from './call-metrics.js';
import type { UpstreamHealth } from './upstream.js';

/** The methods named in metric labels; any other (a vendor method forwarded by name) is `other`. */
const LABELLED_METHODS = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
  'completion/complete',
  'resources/subscribe',
  'resources/unsubscribe',
  'subscriptions/listen',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'logging/setLevel',
  'ping',
  'initialize',
  'server/discover',
]);

/** Latency buckets (seconds): a stdio hop is ~100 us, a slow tool several seconds. */
const BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** One upstream call as measured (a child span only under a recorded request span): end it once, with the error if it failed. */
export interface UpstreamCallRecord {
  end(error?: unknown): void;
}

/**
 * An upstream call's record: one object per forwarded call (an object literal with an `end` closure
 * over its state was three: the object, the closure and its context).
 */
class UpstreamCall implements UpstreamCallRecord {
  private readonly started = performance.now();
  private ended = false;

  constructor(
    private readonly series: CallSeries,
    private readonly span: Span | undefined,
  ) {}

  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.series.ended((performance.now() - this.started) / 1000, error !== undefined);
    if (this.span === undefined) return;
    if (error !== undefined)
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    this.span.end();
  }
}

export interface TelemetrySources {
  health(): readonly UpstreamHealth[];
  /** Downstream sessions that have upstream sessions open. */
  downstreamSessions(): number;
}

export class GatewayTelemetry {
  /** The gateway's own registry (not prom-client's global one: two gateways in a process differ). */
  readonly registry = new Registry();
  private readonly tracer: Tracer;
  private readonly calls: CallMetrics;
  private readonly restarts: Counter<'upstream'>;
  private readonly reopened: Counter<'upstream'>;
  private readonly lost: Counter<'upstream'>;
  private readonly byUpstream = new Map<string, Map<string, CallSeries>>();
  /** The span of each downstream request in flight, for its upstream calls' child spans. */
  private readonly spans = new WeakMap<RequestContext, Span>();

  constructor(sources: TelemetrySources, version: string) {
    const registers = [this.registry];
    this.tracer = trace.getTracer('switchboard-gateway', version);
    this.calls = new CallMetrics(
      this.registry,
      {
        requests: 'switchboard_gateway_upstream_requests_total',
        errors: 'switchboard_gateway_upstream_errors_total',
        duration: 'switchboard_gateway_upstream_request_duration_seconds',
      },
      {
        requests: 'Requests forwarded to an upstream, by upstream and MCP method.',
        errors:
          'Forwarded requests that failed (error answer, timeout, upstream unavailable), by upstream and method.',
        duration:
          'Time from the downstream request reaching the gateway to the upstream answer, by upstream and method.',
      },
      BUCKETS,
    );
    this.restarts = new Counter({
      name: 'switchboard_gateway_upstream_restarts_total',
      help: 'Times an upstream was reconnected (restarted, for a stdio server) after a failure.',
      labelNames: ['upstream'],
      registers,
    });
    this.reopened = new Counter({
      name: 'switchboard_gateway_upstream_sessions_reopened_total',
      help: 'Sessions an upstream forgot (HTTP 404: restarted or evicted) replaced by new ones for the same client.',
      labelNames: ['upstream'],
      registers,
    });
    this.lost = new Counter({
      name: 'switchboard_gateway_upstream_sessions_lost_total',
      help: 'Sessions with an upstream that ended without the gateway closing them (a stdio server that exited, a dropped connection).',
      labelNames: ['upstream'],
      registers,
    });
    new Gauge({
      name: 'switchboard_gateway_upstream_up',
      help: '1 while an upstream is up, else 0 (starting, failing, circuit open, idle).',
      labelNames: ['upstream', 'state'],
      registers,
      collect() {
        this.reset();
        for (const health of sources.health()) {
          this.set({ upstream: health.name, state: health.state }, health.state === 'up' ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'switchboard_gateway_upstream_sessions',
      help: 'Sessions open with an upstream for downstream clients (besides the gateway’s own).',
      labelNames: ['upstream'],
      registers,
      collect() {
        this.reset();
        for (const health of sources.health()) this.set({ upstream: health.name }, health.sessions);
      },
    });
    new Gauge({
      name: 'switchboard_gateway_upstream_lease_waits',
      help: '2026-07-28 calls waiting for a session leased from an upstream (its maxSessions leases in use).',
      labelNames: ['upstream'],
      registers,
      collect() {
        this.reset();
        for (const health of sources.health()) this.set({ upstream: health.name }, health.leaseWaits);
      },
    });
    new Gauge({
      name: 'switchboard_gateway_downstream_sessions',
      help: 'Downstream client sessions with upstream sessions open.',
      registers,
      collect() {
        this.set(sources.downstreamSessions());
      },
    });
  }

  /** Adds the process metrics (CPU, memory, event loop lag) — for the `switchboard gateway` process. */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The Prometheus text exposition of every metric. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** An upstream is served: its restart and session counts show, at 0. */
  upstreamAdded(upstream: string): void {
    this.restarts.inc({ upstream }, 0);
    this.reopened.inc({ upstream }, 0);
    this.lost.inc({ upstream }, 0);
  }

  restarted(upstream: string): void {
    this.restarts.inc({ upstream });
  }

  sessionReopened(upstream: string): void {
    this.reopened.inc({ upstream });
  }

  sessionLost(upstream: string): void {
    this.lost.inc({ upstream });
  }

  /**
   * A downstream request begins: its span, ended by the returned function. Undefined when the span
   * records nothing (no SDK, or not sampled: the usual case): the caller then adds no promise layer
   * of its own to end it, and there are no child spans either, nor anything to remember.
   */
  requestStarted(method: string, ctx: RequestContext): ((error?: unknown) => void) | undefined {
    const span = this.tracer.startSpan(method, {
      kind: SpanKind.SERVER,
      attributes: { 'rpc.system': 'mcp', 'rpc.method': method },
    });
    if (!span.isRecording()) {
      // A non-recording span holds nothing: ending it now is ending it when the request ends.
      span.end();
      return undefined;
    }
    this.spans.set(ctx, span);
    return (error) => {
      if (error !== undefined) {
        span.recordException(error instanceof Error ? error : errorMessage(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
      }
      span.end();
    };
  }

  /** One upstream call made for the downstream request `ctx`: counted, timed, and a child span. */
  upstreamCall(upstream: string, method: string, ctx: RequestContext): UpstreamCallRecord {
    const series = this.seriesFor(upstream, method);
    series.started();
    const parent = this.spans.get(ctx);
    const span =
      parent &&
      this.tracer.startSpan(
        `${upstream} ${method}`,
        {
          kind: SpanKind.CLIENT,
          attributes: { 'rpc.system': 'mcp', 'rpc.method': method, 'mcp.upstream': upstream },
        },
        trace.setSpan(context.active(), parent),
      );
    return new UpstreamCall(series, span);
  }

  private seriesFor(upstream: string, method: string): CallSeries {
    let methods = this.byUpstream.get(upstream);
    if (!methods) {
      methods = new Map();
      this.byUpstream.set(upstream, methods);
    }
    const label = LABELLED_METHODS.has(method) ? method : 'other';
    let found = methods.get(label);
    if (!found) {
      found = this.calls.series(upstream, label);
      methods.set(label, found);
    }
    return found;
  }
}
