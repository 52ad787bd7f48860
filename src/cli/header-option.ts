import { UsageError } from './usage-error.js';

/** `--header "Name: value"` options as a header map; a word without a colon is a UsageError. */
export function headerOptions(list: readonly string[], command: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const header of list) {
    const colon = header.indexOf(':');
    if (colon < 1)
      throw new UsageError(`--header takes "Name: value", got ${JSON.stringify(header)}.`, command);
    out[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  return out;
}
