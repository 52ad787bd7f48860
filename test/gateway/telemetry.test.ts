/**
 * What the gateway tells operators: Prometheus metrics per upstream and method, and OpenTelemetry
 * spans through `@opentelemetry/api` (a span per downstream request, a child per upstream call),
 * recorded here by a tracer provider of the test's own, as an application's SDK would.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { ProtocolError } from '../../src/protocol/errors.js';
import { type StartedGateway, startGateway, switchboardClient, UPSTREAM } from './helpers.js';

interface Recorded {
  name: string;
  kind: number | undefined;
  id: string;
  parent: string | undefined;
  attributes: Record<string, unknown>;
  status?: number;
  ended: boolean;
}

/** A tracer provider that records spans in memory (the part of an SDK the gateway talks to). */
function recordingProvider(spans: Recorded[]): TracerProvider {
  let next = 0;
  const tracer: Tracer = {
    startSpan(name: string, options: SpanOptions = {}, ctx?: Context): Span {
      const spanId = (++next).toString(16).padStart(16, '0');
      const parent = ctx ? trace.getSpan(ctx)?.spanContext().spanId : undefined;
      const record: Recorded = {
        name,
        kind: options.kind,
        id: spanId,
        parent,
        attributes: { ...options.attributes },
        ended: false,
      };
      spans.push(record);
      const spanContext: SpanContext = { traceId: '1'.repeat(32), spanId, traceFlags: 1 };
      const span: Span = {
        spanContext: () => spanContext,
        setAttribute: () => span,
        setAttributes: () => span,
        addEvent: () => span,
        addLink: () => span,
        addLinks: () => span,
        setStatus: (status) => {
          record.status = status.code;
          return span;
        },
        updateName: () => span,
        end: () => {
          record.ended = true;
        },
        isRecording: () => true,
        recordException: () => {},
      };
      return span;
    },
    startActiveSpan: (() => {
      throw new Error('not used by the gateway');
    }) as Tracer['startActiveSpan'],
  };
  return { getTracer: () => tracer };
}

const spans: Recorded[] = [];
let started: StartedGateway;

before(async () => {
  trace.setGlobalTracerProvider(recordingProvider(spans));
  started = await startGateway({ local: { command: process.execPath, args: [UPSTREAM] } });
});
after(async () => {
  await started.close();
  trace.disable();
});

test('metrics count, time and fail per upstream and method; spans nest the upstream call in the request', async () => {
  const { client, assertClean } = await switchboardClient(started.url, 'ops', 'legacy');
  await client.listTools();
  await client.callTool('local__whoami');
  await client.callTool('local__whoami');
  await assert.rejects(client.getPrompt('local__greet', {}), ProtocolError);
  await client.close();
  assertClean();

  const text = await started.gateway.telemetry.metrics();
  const value = (line: string) =>
    Number(new RegExp(`^${line.replace(/[{}+]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
  assert.equal(value('switchboard_gateway_upstream_requests_total{upstream="local",method="tools/call"}'), 2);
  assert.equal(
    value('switchboard_gateway_upstream_requests_total{upstream="local",method="prompts/get"}'),
    1,
  );
  assert.equal(value('switchboard_gateway_upstream_errors_total{upstream="local",method="prompts/get"}'), 1);
  assert.ok(!/errors_total\{upstream="local",method="tools\/call"\}/.test(text), 'no tools/call failed');
  assert.equal(
    value(
      'switchboard_gateway_upstream_request_duration_seconds_count{upstream="local",method="tools/call"}',
    ),
    2,
  );
  assert.equal(
    value(
      'switchboard_gateway_upstream_request_duration_seconds_bucket{le="+Inf",upstream="local",method="tools/call"}',
    ),
    2,
  );
  assert.equal(value('switchboard_gateway_upstream_up{upstream="local",state="up"}'), 1);
  assert.equal(value('switchboard_gateway_upstream_restarts_total{upstream="local"}'), 0);
  assert.match(text, /^switchboard_gateway_upstream_sessions\{upstream="local"\} \d+$/m);
  assert.match(text, /^switchboard_gateway_downstream_sessions \d+$/m);

  const calls = spans.filter((s) => s.name === 'tools/call');
  assert.equal(calls.length, 2);
  for (const call of calls) {
    assert.equal(call.kind, 1 /* SERVER */);
    assert.ok(call.ended);
    const children = spans.filter((s) => s.parent === call.id);
    assert.deepEqual(
      children.map((c) => [c.name, c.kind, c.attributes['mcp.upstream'], c.ended]),
      [['local tools/call', 2 /* CLIENT */, 'local', true]],
    );
  }
  const failed = spans.find((s) => s.name === 'local prompts/get')!;
  assert.equal(failed.status, 2 /* ERROR */);
  assert.equal(spans.find((s) => s.id === failed.parent)?.name, 'prompts/get');
  // Requests the gateway answers itself (the lists) have a span and no child.
  const list = spans.find((s) => s.name === 'tools/list');
  assert.ok(list?.ended);
  assert.ok(!spans.some((s) => s.parent === list.id));
});
