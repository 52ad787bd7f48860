// Processes a test run left behind. scripts/test.js starts each `node --test` in a session of its
// own (setsid, `detached: true`), so every process a test starts, however deep and even once orphaned,
// carries that session id until it exits; nothing in the suite starts a session of its own. Once the
// runner has ended, whatever is still in the session leaked. Linux reads it from /proc; elsewhere the
// check is skipped (CI runs on Linux).
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

export const canCheck = process.platform === 'linux';

/** The live (not zombie) processes of the given sessions: pid and command line. */
export function inSessions(sessions) {
  if (!canCheck) return [];
  const wanted = new Set(sessions);
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    let cmdline;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue; // it exited while we looked
    }
    // The command name (field 2) may hold spaces and parentheses: the fields after its last ')' are
    // state, ppid, process group, session.
    const [state, , , session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' || !wanted.has(Number(session))) continue;
    found.push({ pid: Number(name), command: cmdline.split('\0').join(' ').trim() });
  }
  return found;
}

/**
 * What is still running in the sessions once `graceMs` has passed: a process told to stop just before
 * its test ended (or an orphan noticing its parent is gone) may need a moment on a busy machine. A
 * limit on waiting, not an ordering: the check returns as soon as the sessions are empty.
 */
export async function leftovers(sessions, graceMs = 10_000) {
  const until = Date.now() + graceMs;
  for (;;) {
    const left = inSessions(sessions);
    if (left.length === 0 || Date.now() >= until) return left;
    await delay(100);
  }
}
