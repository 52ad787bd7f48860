/** The benchmark smoke pass over HTTP completes and prints its tables (see smoke.ts). */
import { test } from 'node:test';
import { runSmoke } from './smoke.js';

test('the HTTP benchmark smoke pass completes and prints its tables', (t) =>
  runSmoke('http', ['### HTTP legacy', '### HTTP modern'], t.signal));
