/**
 * A server as `switchboard add` is told about it, before it is written for any client: a command
 * (stdio) or a URL. A value may hold `${NAME}`: the environment variable NAME, a secret that each
 * client's file refers to in its own way and that is never written out unless asked.
 */

export interface StdioSpec {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface UrlSpec {
  readonly kind: 'url';
  readonly url: string;
  /** `http`: Streamable HTTP (either era); `sse`: the legacy HTTP+SSE transport. */
  readonly transport: 'http' | 'sse';
  readonly headers: Readonly<Record<string, string>>;
}

export type ServerSpec = StdioSpec | UrlSpec;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The variables a value refers to with `${NAME}`. */
export function references(value: string): string[] {
  return [...value.matchAll(REFERENCE)].map((m) => m[1]!);
}

/** The value with each `${NAME}` replaced by `replace(NAME)`. */
export function substitute(value: string, replace: (name: string) => string): string {
  return value.replace(REFERENCE, (_whole, name: string) => replace(name));
}

/** `value` is exactly one reference, `${NAME}`: its NAME. */
export function soleReference(value: string): string | undefined {
  const match = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value);
  return match?.[1];
}

/** Every variable the spec refers to, in order, once each. */
export function specReferences(spec: ServerSpec): string[] {
  const values =
    spec.kind === 'stdio'
      ? [spec.command, ...spec.args, ...Object.values(spec.env)]
      : [spec.url, ...Object.values(spec.headers)];
  return [...new Set(values.flatMap(references))];
}
