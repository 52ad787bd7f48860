/**
 * `${name}` in a test's request: a value an earlier test saved (`save: { id: "$.path" }`).
 * A string that is exactly `${name}` becomes the saved value itself (a number stays a number);
 * inside longer text the value is written in (strings as they are, anything else as JSON).
 * `$${` stands for a literal `${`.
 */
import type { Step } from './format.js';

const REFERENCE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const WHOLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The variable names a step refers to, in order of appearance, each once. */
export function variablesIn(step: Step): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const match of value.matchAll(REFERENCE)) if (match[1] === '') found.add(match[2]!);
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit(step);
  return [...found];
}

/** The step with every `${name}` replaced by its saved value. */
export function substitute<T>(value: T, saved: ReadonlyMap<string, unknown>): T {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole && saved.has(whole[1]!)) return saved.get(whole[1]!) as T;
    return value.replace(REFERENCE, (text, escaped: string, name: string) => {
      if (escaped) return text.slice(1);
      const found = saved.get(name);
      return typeof found === 'string' ? found : JSON.stringify(found);
    }) as T;
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, saved)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, saved)])) as T;
  }
  return value;
}
