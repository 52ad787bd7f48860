/**
 * The issue 21 targets table of the gateway bench (bench/gateway-targets.ts): each target read from
 * the right row and columns of one run, judged against its goal, and "n/a" when not measured.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderGatewayTargets } from '../../bench/gateway-targets.js';
import { record, row, section } from '../../bench/lib/report.js';
import { SECTIONS } from '../../bench/scenarios/gateway.js';

const line = (table: string, start: string) => {
  const found = table.split('\n').find((l) => l.startsWith(`| ${start}`));
  assert.ok(found, `no row starting "${start}" in\n${table}`);
  return found;
};

test('the targets table reads each figure off its row, per run, and judges it against the goal', () => {
  const stdio = section(SECTIONS.stdio, ['direct', 'gateway', 'relay'], 'direct');
  const put = (metric: string, column: string, values: number[]) => {
    for (const [run, v] of values.entries()) record(row(stdio, metric, 'x', 'higher'), column, run, v);
  };
  put('legacy 64 in flight throughput', 'direct', [100, 200, 100]);
  put('legacy 64 in flight throughput', 'gateway', [80, 100, 75]);
  put('legacy 64 in flight server CPU per call', 'gateway', [18, 30, 19]);
  put('legacy seq latency p50', 'gateway', [130, 120, 200]);
  put('legacy seq latency p50', 'relay', [100, 100, 100]);
  const table = renderGatewayTargets([stdio], 64);
  // Ratios taken per run (0.8, 0.5, 0.75), then the median: 0.75.
  assert.match(
    line(table, 'stdio upstream, legacy client, 64 in flight: throughput'),
    /\| >= 0\.7x \| 0\.75x \[0\.50-0\.80\] \| yes \|$/,
  );
  assert.match(
    line(table, 'stdio upstream, legacy client, 64 in flight: the gateway'),
    /\| 19\.0 us \[18\.0-30\.0\] \| yes \|$/,
  );
  // Against the relay's p50, not the direct one's: 1.3x is over 1.25x.
  assert.match(
    line(table, 'stdio upstream, legacy client, one call at a time'),
    /\| 1\.30x \[1\.20-2\.00\] \| NO \|$/,
  );
  assert.match(line(table, 'HTTP upstream, legacy client, 64 in flight: throughput'), /\| - \| n\/a \|$/);
  assert.match(
    line(table, 'HTTP floor, legacy client, 64 in flight: throughput'),
    /\| floor \| - \| n\/a \|$/,
  );
  assert.match(line(table, 'the library over stdio'), /\| n\/a \|$/);
});

test('the HTTP floor rows read the relay column, with no goal and no verdict of their own', () => {
  const http = section(SECTIONS.http, ['direct', 'gateway', 'relay'], 'direct');
  const put = (metric: string, column: string, values: number[]) => {
    for (const [run, v] of values.entries()) record(row(http, metric, 'x', 'higher'), column, run, v);
  };
  put('legacy 64 in flight throughput', 'direct', [100, 100]);
  put('legacy 64 in flight throughput', 'relay', [50, 60]);
  put('legacy 64 in flight server CPU per call', 'relay', [90, 110]);
  put('legacy seq latency p50', 'direct', [100, 100]);
  put('legacy seq latency p50', 'relay', [200, 220]);
  const table = renderGatewayTargets([http], 64);
  assert.match(
    line(table, 'HTTP floor, legacy client, 64 in flight: throughput, the relay / direct'),
    /\| floor \| 0\.55x \[0\.50-0\.60\] \| - \|$/,
  );
  assert.match(
    line(table, "HTTP floor, legacy client, 64 in flight: the relay's own CPU per call"),
    /\| floor \| 100 us \[90\.0-110\] \| - \|$/,
  );
  assert.match(
    line(table, 'HTTP floor, legacy client, one call at a time: p50, the relay / direct'),
    /\| floor \| 2\.10x \[2\.00-2\.20\] \| - \|$/,
  );
});

test('the stdio floor rows read the parse relay column, with no goal and no verdict of their own', () => {
  const stdio = section(SECTIONS.stdio, ['direct', 'gateway', 'relay', 'parse relay'], 'direct');
  const put = (metric: string, column: string, values: number[]) => {
    for (const [run, v] of values.entries()) record(row(stdio, metric, 'x', 'higher'), column, run, v);
  };
  put('2026-07-28 64 in flight throughput', 'direct', [100, 100]);
  put('2026-07-28 64 in flight throughput', 'parse relay', [70, 80]);
  // The byte relay's figures are not the parse relay's.
  put('2026-07-28 64 in flight throughput', 'relay', [95, 95]);
  put('2026-07-28 64 in flight server CPU per call', 'parse relay', [11, 13]);
  put('2026-07-28 64 in flight server CPU per call', 'relay', [4, 4]);
  put('2026-07-28 seq latency p50', 'direct', [100, 100]);
  put('2026-07-28 seq latency p50', 'parse relay', [180, 200]);
  const table = renderGatewayTargets([stdio], 64);
  assert.match(
    line(table, 'stdio floor, 2026-07-28 client, 64 in flight: throughput, the parse relay / direct'),
    /\| floor \| 0\.75x \[0\.70-0\.80\] \| - \|$/,
  );
  assert.match(
    line(table, "stdio floor, 2026-07-28 client, 64 in flight: the parse relay's own CPU per call"),
    /\| floor \| 12\.0 us \[11\.0-13\.0\] \| - \|$/,
  );
  assert.match(
    line(table, 'stdio floor, 2026-07-28 client, one call at a time: p50, the parse relay / direct'),
    /\| floor \| 1\.90x \[1\.80-2\.00\] \| - \|$/,
  );
  // Not measured for the other era: no figure, still no verdict.
  assert.match(
    line(table, 'stdio floor, legacy client, 64 in flight: throughput, the parse relay / direct'),
    /\| floor \| - \| n\/a \|$/,
  );
});

test('a run without gateway sections prints no targets table', () => {
  assert.equal(renderGatewayTargets([section('stdio: client + server', ['raw'], 'raw')], 64), '');
});
