/**
 * `gateway.audit`: one JSON line per request that reached the gateway (who, which client and
 * session, what, where it went, how it ended, how long it took, a SHA-256 digest of its arguments,
 * never their values). Each line carries `prev`, the SHA-256 of the line before it (`seq` 1: 64
 * zeros), so a changed or removed line breaks the chain ({@link verifyAudit}). Past `maxBytes` the
 * file is renamed `<file>.<last seq>` and a new one goes on with the same chain, and a restarted
 * gateway goes on from the last line it finds.
 *
 * Lines are hashed as they are recorded and written in batches, one write per turn of the event
 * loop, so a call never waits for the disk. What is not written yet when the process is killed is
 * lost (a clean stop writes everything).
 */
import { hash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { AuditConfig } from './config-security.js';

export type AuditOutcome = 'ok' | 'error' | 'denied' | 'rate_limited' | 'unauthenticated';

export interface AuditEntry {
  readonly principal: string | null;
  /** The client's `clientInfo.name`, when it gave one. */
  readonly client: string | null;
  readonly session: string | null;
  readonly method: string;
  /** The downstream name (tool, prompt) or URI (resource) the request named. */
  readonly name: string | null;
  readonly upstream: string | null;
  readonly outcome: AuditOutcome;
  readonly durationMs: number;
  /** `sha256:<hex>` of the JSON of the request's arguments (tools, prompts), or null. */
  readonly argsDigest: string | null;
}

export const GENESIS = '0'.repeat(64);

/** One-shot (`crypto.hash`): for lines of a few hundred bytes, several times cheaper than a Hash object. */
export function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

/** The digest an entry records for arguments: never the values themselves. */
export function argumentsDigest(args: unknown): string | null {
  return args === undefined ? null : `sha256:${sha256(JSON.stringify(args))}`;
}

/** A string or null as JSON. */
function text(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

/** The longest string whose JSON {@link Quoted} keeps (names, clients, sessions are far shorter). */
const QUOTED_LENGTH = 256;
/** Strings whose JSON is kept at once; past it the memory starts over. */
const QUOTED_MAX = 4096;

/**
 * Strings and null as JSON, remembered: the same few principals, clients, methods, names and
 * upstreams make nearly every line, and a lookup costs a fraction of `JSON.stringify`. (Not for
 * the arguments' digests: nearly every one is new.)
 */
class Quoted {
  readonly #known = new Map<string, string>();

  text(value: string | null): string {
    if (value === null) return 'null';
    let json = this.#known.get(value);
    if (json === undefined) {
      json = text(value);
      if (value.length <= QUOTED_LENGTH) {
        if (this.#known.size >= QUOTED_MAX) this.#known.clear();
        this.#known.set(value, json);
      }
    }
    return json;
  }
}

/** The last line of a file (reading only its end), or undefined for an empty or missing file. */
function lastLine(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = statSync(file).size;
    let length = Math.min(size, 64 * 1024);
    while (length > 0) {
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      const text = buffer.toString('utf8').replace(/\n+$/, '');
      const newline = text.lastIndexOf('\n');
      if (newline !== -1 || length === size) return text.slice(newline + 1) || undefined;
      length = Math.min(size, length * 4);
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The rotated files of `file` (`<file>.<seq>`), oldest first. */
export function rotatedFiles(file: string): string[] {
  const base = basename(file);
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(`${base}.`) && /^\d+$/.test(name.slice(base.length + 1)))
    .sort((a, b) => Number(a.slice(base.length + 1)) - Number(b.slice(base.length + 1)))
    .map((name) => join(dirname(file), name));
}

/** The bytes a pending buffer starts with (and goes back to after a burst). */
const PENDING_BYTES = 64 * 1024;

/**
 * The lines recorded and not written yet, already as the UTF-8 bytes to write (with their newlines),
 * in one buffer that grows: one copy per line, where joining the lines and writing the string cost
 * a join, a byte count and an encoding per batch, and kept every line alive as a string until then.
 * Bytes handed to a write are never overwritten: lines are added past them, and the buffer is only
 * moved to a new one, or rewound once everything is written.
 */
class PendingLines {
  #buffer = Buffer.allocUnsafe(PENDING_BYTES);
  #start = 0;
  #end = 0;
  /** The bytes of each pending line, its newline included, oldest first. */
  readonly #lengths: number[] = [];

  get count(): number {
    return this.#lengths.length;
  }

  get bytes(): number {
    return this.#end - this.#start;
  }

  add(line: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const most = line.length * 3 + 1;
    if (this.#end + most > this.#buffer.length) this.#move(most);
    const written = this.#buffer.write(line, this.#end);
    this.#buffer[this.#end + written] = 0x0a;
    this.#end += written + 1;
    this.#lengths.push(written + 1);
  }

  /** The first `count` lines and their bytes (at most `room` of them, but at least one line), or all. */
  first(room = Number.POSITIVE_INFINITY): { readonly count: number; readonly bytes: number } {
    if (this.bytes <= room) return { count: this.count, bytes: this.bytes };
    let count = 0;
    let bytes = 0;
    for (const length of this.#lengths) {
      if (count > 0 && bytes + length > room) break;
      bytes += length;
      count++;
    }
    return { count, bytes };
  }

  /** The bytes of the first lines (they stay pending until {@link drop}ped). */
  peek(bytes: number): Buffer {
    return this.#buffer.subarray(this.#start, this.#start + bytes);
  }

  /** Forgets the first `count` lines (`bytes` long), written. */
  drop(count: number, bytes: number): void {
    this.#lengths.splice(0, count);
    this.#start += bytes;
    if (this.#start === this.#end) {
      // Nothing pending, nothing being written: start over (in a small buffer after a burst).
      this.#start = this.#end = 0;
      if (this.#buffer.length > 4 * PENDING_BYTES) this.#buffer = Buffer.allocUnsafe(PENDING_BYTES);
    }
  }

  /** Moves the pending bytes to a new buffer with room for `more` (the old one may be being written). */
  #move(more: number): void {
    const pending = this.bytes;
    const next = Buffer.allocUnsafe(Math.max(PENDING_BYTES, 2 * (pending + more)));
    this.#buffer.copy(next, 0, this.#start, this.#end);
    this.#buffer = next;
    this.#start = 0;
    this.#end = pending;
  }
}

export class AuditLog {
  readonly file: string;
  readonly #maxBytes: number;
  #seq: number;
  #prev: string;
  #size: number;
  readonly #pending = new PendingLines();
  #scheduled = false;
  #writing: Promise<void> = Promise.resolve();
  #handle: Promise<FileHandle> | undefined;
  #closed = false;
  readonly #quoted = new Quoted();
  /** Told when a batch cannot be written (the lines stay queued for the next try). */
  onerror: (error: Error) => void = () => {};

  constructor(config: AuditConfig) {
    this.file = config.file;
    this.#maxBytes = config.maxBytes;
    // Go on from where the chain stopped: this file, else the newest rotated one.
    const rotated = rotatedFiles(this.file);
    const last = lastLine(this.file) ?? (rotated.length > 0 ? lastLine(rotated.at(-1)!) : undefined);
    this.#seq = 0;
    this.#prev = GENESIS;
    if (last !== undefined) {
      const seq = (JSON.parse(last) as { seq?: unknown }).seq;
      if (typeof seq === 'number') this.#seq = seq;
      this.#prev = sha256(last);
    }
    let size = 0;
    try {
      size = statSync(this.file).size;
    } catch {}
    this.#size = size;
  }

  /** Records one request (hashed now, written with the next batch). */
  record(entry: AuditEntry): void {
    if (this.#closed) return;
    // Written out by hand in a fixed order: a third of the cost of JSON.stringify of a spread object,
    // and this runs for every request.
    const q = this.#quoted;
    const line =
      `{"seq":${++this.#seq},"time":"${this.#time()}","principal":${q.text(entry.principal)},` +
      `"client":${q.text(entry.client)},"session":${q.text(entry.session)},"method":${q.text(entry.method)},` +
      `"name":${q.text(entry.name)},"upstream":${q.text(entry.upstream)},"outcome":"${entry.outcome}",` +
      `"durationMs":${Number.isFinite(entry.durationMs) ? entry.durationMs : null},` +
      `"argsDigest":${text(entry.argsDigest)},"prev":"${this.#prev}"}`;
    this.#prev = sha256(line);
    this.#pending.add(line);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        void this.flush();
      });
    }
  }

  #clock = { ms: -1, iso: '' };

  /** Now as an ISO string, made once per millisecond (many requests share one). */
  #time(): string {
    const ms = Date.now();
    if (ms !== this.#clock.ms) this.#clock = { ms, iso: new Date(ms).toISOString() };
    return this.#clock.iso;
  }

  /** Writes what is recorded so far; resolves when it is on its way to the disk. */
  flush(): Promise<void> {
    this.#writing = this.#writing.then(() => this.#write());
    return this.#writing;
  }

  async #write(): Promise<void> {
    while (this.#pending.count > 0) {
      // A batch that would take the file past its size goes to a new file, at a line boundary.
      const { count, bytes } = this.#pending.first(this.#maxBytes - this.#size);
      if (this.#size > 0 && this.#size + bytes > this.#maxBytes) {
        await this.#rotate();
        continue;
      }
      try {
        this.#handle ??= open(this.file, 'a', 0o600);
        const handle = await this.#handle;
        const batch = this.#pending.peek(bytes);
        for (let done = 0; done < bytes; ) done += (await handle.write(batch, done)).bytesWritten;
      } catch (error) {
        this.#handle = undefined;
        this.onerror(error as Error);
        return;
      }
      this.#pending.drop(count, bytes);
      this.#size += bytes;
    }
  }

  async #rotate(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle) await (await handle).close();
    const last = lastLine(this.file);
    const seq = last === undefined ? this.#seq : (JSON.parse(last) as { seq: number }).seq;
    renameSync(this.file, `${this.file}.${seq}`);
    this.#size = 0;
  }

  /** Writes everything recorded, then closes the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle) await (await handle).close();
  }
}

export type AuditVerdict =
  | { readonly ok: true; readonly lines: number; readonly files: number }
  | { readonly ok: false; readonly file: string; readonly line: number; readonly reason: string };

/**
 * Checks the chain of one or more audit files, in order (rotated ones first). The first line of the
 * first file may go on from a file not given (its `seq` above 1): then its `prev` cannot be checked.
 */
export function verifyAudit(files: readonly string[]): AuditVerdict {
  let prev: string | undefined;
  let seq: number | undefined;
  let lines = 0;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      return {
        ok: false,
        file,
        line: 0,
        reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      };
    }
    const all = text.split('\n');
    if (all.at(-1) === '') all.pop();
    for (const [index, line] of all.entries()) {
      const at = index + 1;
      const broken = (reason: string): AuditVerdict => ({ ok: false, file, line: at, reason });
      let record: { seq?: unknown; prev?: unknown };
      try {
        record = JSON.parse(line) as typeof record;
      } catch {
        return broken('not a JSON line');
      }
      if (
        typeof record !== 'object' ||
        record === null ||
        typeof record.seq !== 'number' ||
        typeof record.prev !== 'string'
      ) {
        return broken('not an audit line (no "seq" and "prev")');
      }
      if (seq === undefined) {
        if (record.seq === 1 && record.prev !== GENESIS)
          return broken('the first line does not start the chain');
      } else if (record.seq !== seq + 1) {
        return broken(
          `seq ${record.seq} follows seq ${seq}: ${record.seq > seq + 1 ? 'lines before it were removed' : 'lines were reordered or repeated'}`,
        );
      }
      if (prev !== undefined && record.prev !== prev) {
        return broken(
          `its "prev" is not the hash of the line before it: ${at === 1 ? 'the last line of the file before' : `line ${at - 1}`} was changed, or a line was removed`,
        );
      }
      seq = record.seq;
      prev = sha256(line);
      lines++;
    }
  }
  return { ok: true, lines, files: files.length };
}
