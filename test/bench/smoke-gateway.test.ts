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
    ],
    t.signal,
    [
      /^\| metric \| unit \| direct \| gateway \|/m,
      /^\| seq latency p50 \| us/m,
      /^\| 64 in flight throughput \| calls\/s/m,
      /^\| metric \| unit \| no hop \| gateway \| mcp-proxy \| supergateway \|/m,
      /^\| 64 in flight serving CPU per call \(hop \+ upstream\) \| us/m,
    ],
  ));
