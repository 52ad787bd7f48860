/** The benchmark smoke pass over stdio completes and prints its tables (see smoke.ts). */
import { test } from 'node:test';
import { runSmoke } from './smoke.js';

test('the stdio benchmark smoke pass completes and prints its tables', (t) =>
  runSmoke('stdio', ['### stdio: client + server', '### stdio: one side alone'], t.signal));
