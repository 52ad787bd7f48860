/** The cold-start benchmark's smoke pass completes and prints its rows (see smoke.ts). */
import { test } from 'node:test';
import { runSmoke } from './smoke.js';

test('the cold-start benchmark smoke pass completes and prints its rows', (t) =>
  runSmoke('cold', ['### stdio cold start'], t.signal, [
    /^\| metric \| unit \| switchboard \| switchboard-modern \| switchboard-unbundled \| sdk-v1 \| sdk-v2 \| sdk-v2-modern \| raw \|/m,
    /^\| spawn to first answer p50 \| ms /m,
    /^\| spawn to first answer p90 \| ms /m,
    /^\| import of the library \| ms /m,
  ]));
