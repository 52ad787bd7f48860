/**
 * What `<target>` names on the command line: the server to talk to (see `node/target.ts`, which
 * reads it for every part of Switchboard). A target the CLI cannot read is a usage mistake (exit 2).
 */
import { parseTarget, type Target, TargetError } from '../node/target.js';
import { UsageError } from './usage-error.js';

/** `parseTarget` with its mistakes as UsageErrors pointing at `command`'s help. */
export function targetFromWords(words: readonly string[], fromDoubleDash: boolean, command?: string): Target {
  try {
    return parseTarget(words, fromDoubleDash);
  } catch (error) {
    if (error instanceof TargetError) throw new UsageError(error.message, command);
    throw error;
  }
}
