/** The gateway benchmark smoke pass completes and prints its tables (see smoke.ts). */
import { test } from 'node:test';
import { runSmoke } from './smoke.js';

test('the gateway benchmark smoke pass completes and prints its tables', (t) =>
  runSmoke(
    'gateway',
    [
      '### gateway: stdio upstream, one hop vs direct',
      '### gateway: HTTP upstream, one hop vs direct',
      '### gateway: from outside, one stdio server bridged to Streamable HTTP',
      '### gateway run: the library alone over stdio, 64 in flight',
    ],
    t.signal,
    [
      // Both transports with their relay floor, and stdio with the parse relay's too.
      /^### gateway: stdio upstream, one hop vs direct\n+\| metric \| unit \| direct \| gateway \| relay \| parse relay \|/m,
      /^### gateway: HTTP upstream, one hop vs direct\n+\| metric \| unit \| direct \| gateway \| relay \|/m,
      // Both downstream eras, every row filled (a cell that failed would leave a dash).
      /^\| legacy seq latency p50 \| us \(less is better\) \| [\d,.]+ \| [\d,.]+ \| [\d,.]+ \|/m,
      /^\| 2026-07-28 64 in flight throughput \| calls\/s \(more is better\) \| [\d,.]+ \| [\d,.]+ \| [\d,.]+ \|/m,
      /^\| 2026-07-28 64 in flight server CPU per call \| us/m,
      // Only the stdio section has a fourth column: the parse relay's cells filled, both eras.
      /^\| legacy seq latency p50 \| us \(less is better\) \| [\d,.]+ \| [\d,.]+ \| [\d,.]+ \| [\d,.]+ \|/m,
      /^\| 2026-07-28 64 in flight server CPU per call \| us \(less is better\) \| [\d,.]+ \| [\d,.]+ \| [\d,.]+ \| [\d,.]+ \|/m,
      /^\| metric \| unit \| no hop \| bridge floor \| gateway \| mcp-proxy \| supergateway \|/m,
      // The bridge floor answered (a dash would be a failed cell).
      /^\| 64 in flight serving CPU per call \(hop \+ upstream\) \| us \(less is better\) \| [\d,.]+ \| [\d,.]+ \|/m,
      /^\| metric \| unit \| switchboard \| switchboard-modern \| raw \|/m,
    ],
  ));
