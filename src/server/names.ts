/** Name rules for tools and prompts (2025-11-25 guidance: 1-128 characters of [A-Za-z0-9_.-]). */
import { SwitchboardError } from '../protocol/errors.js';

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function checkName(kind: string, name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new SwitchboardError(
      'CONFIG',
      `Invalid ${kind} name ${JSON.stringify(name)}: use 1-128 characters from A-Z, a-z, 0-9, "_", "." and "-".`,
    );
  }
  return name;
}
