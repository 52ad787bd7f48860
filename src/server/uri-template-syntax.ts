/**
 * RFC 6570 URI Template syntax: the parser, the operator table, and the percent-encoding rules that both
 * expansion and matching share. Pure functions, no I/O.
 */
import { SwitchboardError } from '../protocol/errors.js';

/** Templates longer than this are refused: they are configuration, and anything longer is a mistake. */
export const MAX_TEMPLATE_LENGTH = 4096;

/** How one expression operator expands (RFC 6570 Appendix A, the table of `first`/`sep`/`named`/...). */
export interface Operator {
  /** The operator character as written after `{`; `''` for simple string expansion. */
  readonly char: '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';
  /** Written before the first defined variable of the expression. */
  readonly first: string;
  /** Written between variables, and between the items of an exploded value. */
  readonly sep: string;
  /** Whether values are written as `name=value`. */
  readonly named: boolean;
  /** Written after the name when a named value is empty (`;x` versus `?x=`). */
  readonly ifemp: string;
  /** Whether reserved characters and existing `%XX` triplets pass through unencoded. */
  readonly allowReserved: boolean;
}

const operator = (
  char: Operator['char'],
  first: string,
  sep: string,
  named: boolean,
  ifemp: string,
  allowReserved: boolean,
): Operator => ({ char, first, sep, named, ifemp, allowReserved });

const OPERATORS: ReadonlyMap<string, Operator> = new Map([
  ['', operator('', '', ',', false, '', false)],
  ['+', operator('+', '', ',', false, '', true)],
  ['#', operator('#', '#', ',', false, '', true)],
  ['.', operator('.', '.', '.', false, '', false)],
  ['/', operator('/', '/', '/', false, '', false)],
  [';', operator(';', ';', ';', true, '', false)],
  ['?', operator('?', '?', '&', true, '=', false)],
  ['&', operator('&', '&', '&', true, '=', false)],
]);

/** Operators RFC 6570 §2.2 keeps for future extensions: a template using them is invalid today. */
const RESERVED_OPERATORS = '=,!@|';

export interface VarSpec {
  /** The name as written (it may contain `.` and `%XX` triplets). */
  readonly name: string;
  /** The `:N` prefix length, or 0 when there is none. */
  readonly prefix: number;
  /** The `*` explode modifier. */
  readonly explode: boolean;
}

export interface Expression {
  readonly kind: 'expression';
  readonly operator: Operator;
  readonly vars: readonly VarSpec[];
}

export interface Literal {
  readonly kind: 'literal';
  /** The literal as it appears in an expanded URI: characters outside the URI syntax are %-encoded. */
  readonly text: string;
}

export type TemplatePart = Literal | Expression;

/**
 * ASCII characters RFC 6570 §2.1 forbids in literals: controls, space, `"`, `'`, `<`, `>`, `\`, `^`,
 * `` ` ``, `{`, `|`, `}` (braces are handled by the parser, `%` must start a triplet).
 */
const isForbiddenLiteral = (code: number): boolean =>
  code <= 0x20 || code === 0x7f || '"\'<>\\^`|'.includes(String.fromCharCode(code));

const isHexDigit = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);

/** Whether `s` has a `%XX` triplet at index `i`. */
export const isTripletAt = (s: string, i: number): boolean =>
  s.charCodeAt(i) === 0x25 && isHexDigit(s.charCodeAt(i + 1)) && isHexDigit(s.charCodeAt(i + 2));

const fail = (template: string, offset: number, problem: string, fix: string): never => {
  throw new SwitchboardError(
    'CONFIG',
    `Invalid URI template ${JSON.stringify(template)}: ${problem} at offset ${offset}. ${fix}`,
  );
};

/** Parses a template into literal and expression parts, or throws a `CONFIG` error naming the offset. */
export function parseTemplate(template: string): TemplatePart[] {
  if (template.length > MAX_TEMPLATE_LENGTH) {
    throw new SwitchboardError(
      'CONFIG',
      `URI template is ${template.length} characters long; the limit is ${MAX_TEMPLATE_LENGTH}. ` +
        'Use a shorter template.',
    );
  }
  const parts: TemplatePart[] = [];
  let literal = '';
  let i = 0;
  while (i < template.length) {
    const code = template.charCodeAt(i);
    if (code === 0x7b /* { */) {
      const close = template.indexOf('}', i + 1);
      const nested = template.indexOf('{', i + 1);
      if (close < 0 || (nested >= 0 && nested < close)) {
        fail(
          template,
          i,
          "unclosed expression ('{' has no matching '}')",
          "Close it, or write %7B for a literal '{'.",
        );
      }
      if (literal) parts.push({ kind: 'literal', text: encodeValue(literal, true) });
      literal = '';
      parts.push(parseExpression(template, i + 1, close));
      i = close + 1;
    } else if (code === 0x7d /* } */) {
      fail(template, i, "'}' without a matching '{'", "Remove it, or write %7D for a literal '}'.");
    } else if (code === 0x25 /* % */) {
      if (!isTripletAt(template, i)) {
        fail(template, i, "'%' that does not start a %XX triplet", "Write %25 for a literal '%'.");
      }
      literal += template.slice(i, i + 3);
      i += 3;
    } else {
      if (isForbiddenLiteral(code)) {
        fail(
          template,
          i,
          `character ${JSON.stringify(template[i])} is not allowed in a URI template`,
          'Percent-encode it (RFC 6570 §2.1).',
        );
      }
      literal += template[i];
      i++;
    }
  }
  if (literal) parts.push({ kind: 'literal', text: encodeValue(literal, true) });
  return parts;
}

/** Parses the expression whose body is `template[start, end)` (between the braces). */
function parseExpression(template: string, start: number, end: number): Expression {
  if (start === end)
    fail(template, start - 1, "empty expression '{}'", 'Put a variable name between the braces.');
  let i = start;
  const opChar = template[i]!;
  let op = OPERATORS.get('')!;
  if (OPERATORS.has(opChar)) {
    op = OPERATORS.get(opChar)!;
    i++;
  } else if (RESERVED_OPERATORS.includes(opChar)) {
    fail(
      template,
      i,
      `operator '${opChar}' is reserved by RFC 6570 for future extensions`,
      'Use one of + # . / ; ? & or none.',
    );
  }
  const vars: VarSpec[] = [];
  for (;;) {
    const comma = template.indexOf(',', i);
    const specEnd = comma >= 0 && comma < end ? comma : end;
    vars.push(parseVarSpec(template, i, specEnd));
    if (specEnd === end) break;
    i = specEnd + 1;
  }
  return { kind: 'expression', operator: op, vars };
}

const isVarChar = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x61 && code <= 0x7a) ||
  code === 0x5f;

/** varspec = varname [ ":" max-length / "*" ]; varname = varchar *( ["."] varchar ). */
function parseVarSpec(template: string, start: number, end: number): VarSpec {
  let i = start;
  let afterDot = true; // a name may not start with '.', nor have '..' or end with '.'
  while (i < end) {
    const code = template.charCodeAt(i);
    if (isVarChar(code)) {
      i++;
    } else if (isTripletAt(template, i)) {
      i += 3;
    } else if (code === 0x2e /* . */ && !afterDot) {
      afterDot = true;
      i++;
      continue;
    } else {
      break;
    }
    afterDot = false;
  }
  const name = template.slice(start, i);
  const rule = "Variable names use letters, digits, '_', %XX triplets, and single dots between them.";
  if (name === '') {
    if (i === end) fail(template, i, 'missing variable name', rule);
    fail(template, i, `invalid character ${JSON.stringify(template[i])} in a variable name`, rule);
  }
  if (afterDot) fail(template, i - 1, `variable name "${name}" ends with '.' or contains '..'`, rule);
  if (i === end) return { name, prefix: 0, explode: false };
  if (template[i] === '*') {
    if (i + 1 === end) return { name, prefix: 0, explode: true };
    fail(
      template,
      i,
      `'*' is not the last character of variable "${name}"`,
      'A variable takes a prefix or an explode modifier, not both.',
    );
  }
  if (template[i] === ':') {
    const digits = template.slice(i + 1, end);
    if (/^[1-9][0-9]{0,3}$/.test(digits)) return { name, prefix: Number(digits), explode: false };
    fail(
      template,
      i + 1,
      `prefix length ${JSON.stringify(digits)} is not a number from 1 to 9999`,
      digits.endsWith('*')
        ? 'A variable takes a prefix or an explode modifier, not both.'
        : 'Write {name:N} with 1 ≤ N ≤ 9999.',
    );
  }
  return fail(
    template,
    i,
    `invalid character ${JSON.stringify(template[i])} after variable name "${name}"`,
    "Only ':N' (prefix) or '*' (explode) may follow a name; separate variables with ','.",
  );
}

// ---------------------------------------------------------------------------------------------------
// Percent-encoding

/** 1 for the characters copied as they are: unreserved always, reserved too when allowed. */
const UNRESERVED = new Uint8Array(128);
const RESERVED = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9\-._~]/.test(ch)) UNRESERVED[c] = 1;
  if (":/?#[]@!$&'()*+,;=".includes(ch)) RESERVED[c] = 1;
}
const HEX = '0123456789ABCDEF';
const pctByte = (byte: number): string => `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
const utf8 = new TextEncoder();

/** UTF-8 %-encoding of one string (lone surrogates become U+FFFD, as TextEncoder does). */
export function pctEncodeUtf8(s: string): string {
  let out = '';
  for (const byte of utf8.encode(s)) out += pctByte(byte);
  return out;
}

/**
 * Encodes a value for an expression (or a literal, with `allowReserved`): unreserved characters stay,
 * reserved characters and existing `%XX` triplets stay only when `allowReserved` (the `+` and `#`
 * operators), everything else becomes UTF-8 `%XX`.
 */
export function encodeValue(value: string, allowReserved: boolean): string {
  let out = '';
  let copied = 0; // value[copied, i) is waiting to be copied unchanged
  let i = 0;
  while (i < value.length) {
    const code = value.charCodeAt(i);
    if (code < 128 && (UNRESERVED[code] === 1 || (allowReserved && RESERVED[code] === 1))) {
      i++;
    } else if (allowReserved && isTripletAt(value, i)) {
      i += 3;
    } else {
      out += value.slice(copied, i);
      // A surrogate pair is one character: encode both halves together.
      const next = value.charCodeAt(i + 1);
      const width = code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
      out += code < 128 ? pctByte(code) : pctEncodeUtf8(value.slice(i, i + width));
      i += width;
      copied = i;
    }
  }
  return copied === 0 ? value : out + value.slice(copied);
}

const utf8Lenient = new TextDecoder();

/**
 * Decodes `%XX` triplets as UTF-8. Never throws: a `%` that does not start a triplet stays as it is and
 * bytes that are not valid UTF-8 become U+FFFD, so a sloppy client URI still yields a string (which
 * the handler validates like any other input).
 */
export function percentDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    // Malformed: fall through to the lenient decoder.
  }
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (!isTripletAt(s, i)) {
      out += s[i];
      i++;
      continue;
    }
    const bytes: number[] = [];
    while (isTripletAt(s, i)) {
      bytes.push(Number.parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    }
    out += utf8Lenient.decode(new Uint8Array(bytes));
  }
  return out;
}
