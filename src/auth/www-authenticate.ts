/**
 * The `WWW-Authenticate` header (RFC 9110 §11.6.1): the server writes its Bearer challenge (RFC 6750
 * §3, RFC 9728 §5.1), the client reads every challenge a server sent, whichever comes first.
 *
 *   challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
 *   auth-param = token BWS "=" BWS ( token / quoted-string )
 *
 * Several challenges share one header, separated by commas, as do the params of one challenge: a
 * comma followed by `token "="` continues the params, a comma followed by a bare token starts the
 * next challenge. The parser never throws; what it cannot read it skips.
 */

export interface Challenge {
  /** The auth scheme, lower-cased (`bearer`, `dpop`). */
  readonly scheme: string;
  /** Params by lower-cased name; the first occurrence wins. */
  readonly params: Readonly<Record<string, string>>;
  /** A token68 in place of params (`Negotiate abc==`), if any. */
  readonly token68?: string;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68_CHAR = /[A-Za-z0-9\-._~+/]/;

const isSpace = (c: string | undefined) => c === ' ' || c === '\t';

class Reader {
  i = 0;
  constructor(readonly s: string) {}

  get done(): boolean {
    return this.i >= this.s.length;
  }

  peek(offset = 0): string | undefined {
    return this.s[this.i + offset];
  }

  spaces(): void {
    while (isSpace(this.peek())) this.i++;
  }

  token(): string {
    const start = this.i;
    while (!this.done && TCHAR.test(this.s[this.i]!)) this.i++;
    return this.s.slice(start, this.i);
  }

  /** A quoted-string at the cursor, unescaped; an unterminated one runs to the end. */
  quoted(): string {
    this.i++; // opening quote
    let out = '';
    while (!this.done) {
      const c = this.s[this.i++]!;
      if (c === '"') return out;
      if (c === '\\' && !this.done) out += this.s[this.i++]!;
      else out += c;
    }
    return out;
  }
}

/** Every challenge in a `WWW-Authenticate` value (several headers joined with `, ` work too). */
export function parseWwwAuthenticate(header: string | null | undefined): Challenge[] {
  if (!header) return [];
  const r = new Reader(header);
  const challenges: Challenge[] = [];
  while (!r.done) {
    while (!r.done && (isSpace(r.peek()) || r.peek() === ',')) r.i++;
    const scheme = r.token();
    if (scheme === '') {
      if (!r.done) r.i++; // not a token: skip the character
      continue;
    }
    const params: Record<string, string> = {};
    let token68: string | undefined;
    r.spaces();
    for (let first = true; !r.done; first = false) {
      const save = r.i;
      r.spaces();
      const name = r.token();
      r.spaces();
      if (name === '' || r.peek() !== '=') {
        if (first && name === '' && TOKEN68_CHAR.test(r.peek() ?? '')) {
          // A token68 made of characters a token cannot hold (`/`): read it whole.
          token68 = readToken68(r);
        } else {
          r.i = save; // the next challenge starts here
        }
        break;
      }
      r.i++; // '='
      r.spaces();
      let value: string;
      if (r.peek() === '"') value = r.quoted();
      else {
        value = r.token();
        if (value === '' && first) {
          // `name=` then `=`, a comma or the end: a token68 such as `abc==`.
          while (r.peek() === '=') r.i++;
          token68 = header.slice(save, r.i).trim();
          break;
        }
      }
      const key = name.toLowerCase();
      if (!(key in params)) params[key] = value;
      r.spaces();
      if (r.peek() !== ',') break;
      r.i++;
    }
    const lower = scheme.toLowerCase();
    challenges.push(token68 === undefined ? { scheme: lower, params } : { scheme: lower, params, token68 });
  }
  return challenges;
}

function readToken68(r: Reader): string {
  const start = r.i;
  while (!r.done && TOKEN68_CHAR.test(r.peek()!)) r.i++;
  while (r.peek() === '=') r.i++;
  return r.s.slice(start, r.i);
}

/** The first challenge of `scheme` (case-insensitive) in a header, if any. */
export function findChallenge(header: string | null | undefined, scheme: string): Challenge | undefined {
  const wanted = scheme.toLowerCase();
  return parseWwwAuthenticate(header).find((c) => c.scheme === wanted);
}

/** A challenge as a header value: `Bearer name="value", ...` (params with undefined values left out). */
export function formatChallenge(scheme: string, params: Record<string, string | undefined>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) parts.push(`${name}="${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`);
  }
  return parts.length === 0 ? scheme : `${scheme} ${parts.join(', ')}`;
}
