/** Assertions on how a call failed: which error class, which code, which words in the message. */
import assert from 'node:assert/strict';
import { type LocalErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';

/** `promise` rejects with a ProtocolError of `code` whose message holds every fragment. */
export async function rejectsProtocol(promise: Promise<unknown>, code: number, ...fragments: string[]) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ProtocolError, `expected a ProtocolError, got ${error}`);
    assert.equal(error.code, code, error.message);
    for (const f of fragments) assert.ok(error.message.includes(f), `"${f}" in ${error.message}`);
    return true;
  });
}

/** `promise` rejects with a SwitchboardError of `code` whose message holds every fragment. */
export async function rejectsLocal(promise: Promise<unknown>, code: LocalErrorCode, ...fragments: string[]) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SwitchboardError, `expected a SwitchboardError, got ${error}`);
    assert.equal(error.code, code, error.message);
    for (const f of fragments) assert.ok(error.message.includes(f), `"${f}" in ${error.message}`);
    return true;
  });
}

/** The ProtocolError `run` fails with (to compare two failures with each other). */
export async function protocolFailure(run: () => Promise<unknown>): Promise<ProtocolError> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof ProtocolError, `expected a ProtocolError, got ${error}`);
    return error;
  }
  assert.fail('expected the request to fail');
}
