/**
 * Variable expansion in config strings, as the configs people already have use it:
 * `${VAR}`, `${env:VAR}` (VS Code), `${VAR:-default}` (shell: the default when VAR is unset or
 * empty), `${input:id}` (VS Code `inputs`), `${workspaceFolder}` and `${userHome}` (VS Code).
 * `$$` stays a literal `$` only before `{` (`$${NOT_EXPANDED}`).
 */

export interface ExpandScope {
  /** Environment variables (normally `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Values of VS Code `${input:id}` references, by id. */
  readonly inputs: ReadonlyMap<string, string>;
  /** The ids the file declares in `inputs` (an undeclared id gets its own message). */
  readonly declaredInputs: ReadonlySet<string>;
  readonly workspaceFolder: string;
  readonly userHome: string | undefined;
}

/** A reference that could not be expanded: where in the string, and why. */
export interface ExpandFailure {
  /** Index of the `$` in the string. */
  readonly index: number;
  readonly message: string;
  readonly fix: string;
}

const REFERENCE = /\$(\$)?\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Environment variable that supplies the value of `${input:id}` when the gateway runs unattended. */
export function inputVariable(id: string): string {
  return `SWITCHBOARD_INPUT_${id.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
}

export function expand(text: string, scope: ExpandScope): { value: string; failures: ExpandFailure[] } {
  const failures: ExpandFailure[] = [];
  const value = text.replace(REFERENCE, (whole, escaped: string | undefined, body: string, index: number) => {
    if (escaped) return whole.slice(1);
    const resolved = resolve(body, scope);
    if (typeof resolved === 'string') return resolved;
    failures.push({ index, ...resolved });
    return whole;
  });
  return { value, failures };
}

function resolve(body: string, scope: ExpandScope): string | { message: string; fix: string } {
  if (body === 'workspaceFolder') return scope.workspaceFolder;
  if (body === 'userHome') {
    if (scope.userHome !== undefined) return scope.userHome;
    return { message: '${userHome} is used but HOME is not set.', fix: 'Set HOME, or write the path.' };
  }
  if (body.startsWith('input:')) {
    const id = body.slice('input:'.length);
    const value = scope.inputs.get(id) ?? scope.env[inputVariable(id)];
    if (value !== undefined) return value;
    if (!scope.declaredInputs.has(id)) {
      return {
        message: `\${input:${id}} names an input the file does not declare.`,
        fix: `Declare it in "inputs" ({ "type": "promptString", "id": "${id}" }), or use \${env:VAR}.`,
      };
    }
    return {
      message: `The input "${id}" has no value: the gateway does not prompt.`,
      fix: `Set the environment variable ${inputVariable(id)}.`,
    };
  }
  const reference = body.startsWith('env:') ? body.slice('env:'.length) : body;
  const split = reference.indexOf(':-');
  const name = split === -1 ? reference : reference.slice(0, split);
  if (!NAME.test(name)) {
    return {
      message: `\${${body}} is not a variable reference this config understands.`,
      fix: 'Write ${VAR}, ${env:VAR} or ${VAR:-default} (letters, digits and _), or $${...} for a literal.',
    };
  }
  const value = scope.env[name];
  if (split !== -1) return value === undefined || value === '' ? reference.slice(split + 2) : value;
  if (value !== undefined) return value;
  return {
    message: `The environment variable ${name} is not set.`,
    fix: `Set ${name}, or give a default: \${${name}:-value}.`,
  };
}
