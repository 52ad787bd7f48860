/**
 * The forwarded calls' metrics, kept as plain numbers and handed to the registry at scrape time,
 * read exactly as prom-client's own Counter and Histogram read after the same calls: the same
 * Prometheus text (names, help, labels, buckets, series order) and the same JSON.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { CallMetrics } from '../../src/gateway/call-metrics.js';

const NAMES = { requests: 'x_requests_total', errors: 'x_errors_total', duration: 'x_duration_seconds' };
const HELP = { requests: 'Requests.', errors: 'Errors.', duration: 'Time.' };
const BOUNDS = [0.001, 0.01, 0.1, 1];

interface Call {
  upstream: string;
  method: string;
  seconds: number;
  failed: boolean;
  /** How many calls begin before this one ends (calls end out of order). */
  overlap: number;
}

/** prom-client's own metrics, as the gateway used them before. */
function reference(registry: Registry) {
  const labelNames = ['upstream', 'method'] as const;
  const registers = [registry];
  return {
    requests: new Counter({ name: NAMES.requests, help: HELP.requests, labelNames, registers }),
    errors: new Counter({ name: NAMES.errors, help: HELP.errors, labelNames, registers }),
    duration: new Histogram({
      name: NAMES.duration,
      help: HELP.duration,
      labelNames,
      buckets: BOUNDS,
      registers,
    }),
  };
}

/** Runs the calls on both: each begins in order, and ends after `overlap` later calls began. */
async function both(calls: readonly Call[]): Promise<{ ours: Registry; theirs: Registry }> {
  const ours = new Registry();
  const theirs = new Registry();
  const metrics = new CallMetrics(ours, NAMES, HELP, BOUNDS);
  const prom = reference(theirs);
  const series = new Map<string, ReturnType<CallMetrics['series']>>();
  const open: { call: Call; due: number }[] = [];
  const end = ({ call }: { call: Call }) => {
    const labels = { upstream: call.upstream, method: call.method };
    series.get(`${call.upstream} ${call.method}`)!.ended(call.seconds, call.failed);
    prom.duration.observe(labels, call.seconds);
    if (call.failed) prom.errors.inc(labels);
  };
  calls.forEach((call, i) => {
    const key = `${call.upstream} ${call.method}`;
    if (!series.has(key)) series.set(key, metrics.series(call.upstream, call.method));
    series.get(key)!.started();
    prom.requests.inc({ upstream: call.upstream, method: call.method });
    open.push({ call, due: i + call.overlap });
    for (const due of open.filter((o) => o.due <= i)) {
      end(due);
      open.splice(open.indexOf(due), 1);
    }
  });
  for (const left of open) end(left);
  return { ours, theirs };
}

const call = fc.record({
  upstream: fc.constantFrom('a', 'b', 'we"ird\\name'),
  method: fc.constantFrom('tools/call', 'prompts/get', 'other'),
  seconds: fc.oneof(fc.constantFrom(0, ...BOUNDS, 5), fc.double({ min: 0, max: 3, noNaN: true })),
  failed: fc.boolean(),
  overlap: fc.nat(3),
});

test('the exposition of the plain-number metrics is prom-client’s, for any calls', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(call, { maxLength: 40 }), async (calls) => {
      const { ours, theirs } = await both(calls);
      assert.equal(await ours.metrics(), await theirs.metrics());
      assert.deepEqual(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
    }),
  );
});

test('a call is counted, timed in its bucket, and its failure counted once', async () => {
  const { ours } = await both([
    { upstream: 'a', method: 'tools/call', seconds: 0.005, failed: false, overlap: 0 },
    { upstream: 'a', method: 'tools/call', seconds: 2, failed: true, overlap: 0 },
  ]);
  const text = await ours.metrics();
  assert.match(text, /^x_requests_total\{upstream="a",method="tools\/call"\} 2$/m);
  assert.match(text, /^x_errors_total\{upstream="a",method="tools\/call"\} 1$/m);
  assert.match(text, /^x_duration_seconds_bucket\{le="0.001",upstream="a",method="tools\/call"\} 0$/m);
  assert.match(text, /^x_duration_seconds_bucket\{le="0.01",upstream="a",method="tools\/call"\} 1$/m);
  assert.match(text, /^x_duration_seconds_bucket\{le="1",upstream="a",method="tools\/call"\} 1$/m);
  assert.match(text, /^x_duration_seconds_bucket\{le="\+Inf",upstream="a",method="tools\/call"\} 2$/m);
  assert.match(text, /^x_duration_seconds_sum\{upstream="a",method="tools\/call"\} 2.005$/m);
  assert.match(text, /^x_duration_seconds_count\{upstream="a",method="tools\/call"\} 2$/m);
});
