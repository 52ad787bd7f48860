/**
 * Splits one command-line string into words with a small, predictable subset of POSIX shell rules,
 * so `switchboard tools "node server.js --flag"` (and the console's connect form) runs `node` with
 * two arguments — without a shell.
 *
 * - Whitespace separates words.
 * - '…' keeps everything literally; "…" keeps everything literally except `\"` and `\\`.
 * - Outside quotes a backslash escapes only whitespace, a quote or a backslash; before any other
 *   character it stays as it is, so Windows paths such as `C:\tools\server.exe` survive.
 * - Nothing is expanded: no `$VAR`, `~`, globs or command substitution.
 * - Unquoted `|`, `&`, `;`, `<`, `>` are refused: they would mean something to a shell but are not
 *   interpreted here, and passing them on as arguments would only hide the mistake.
 */
/** A command line that cannot be split (a shell operator, an unterminated quote); the CLI reports it as a usage error. */
export class CommandLineError extends Error {
  override name = 'CommandLineError';
}

const SHELL_OPERATORS = new Set(['|', '&', ';', '<', '>']);

export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  /** Whether a word has started: `""` is an empty word, not nothing. */
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += c;
      continue;
    }
    if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '\\' && i + 1 < line.length && /[\s"'\\]/.test(line[i + 1]!)) {
      word += line[++i];
    } else if (SHELL_OPERATORS.has(c)) {
      throw new CommandLineError(
        `The server command ${JSON.stringify(line)} contains the shell operator "${c}", but it is run without a shell. ` +
          `Quote the character if it is part of an argument, or run a shell explicitly: "sh -c '…'".`,
      );
    } else {
      word += c;
    }
  }
  if (quote) {
    throw new CommandLineError(
      `The server command ${JSON.stringify(line)} has an unterminated ${quote} quote.`,
    );
  }
  if (inWord) words.push(word);
  return words;
}
