/**
 * CPU time of a process: our own with `process.cpuUsage()`, another's from `/proc/PID/stat` (Linux;
 * elsewhere server CPU is simply not reported). `/proc` counts in clock ticks (usually 10 ms), fine
 * over windows of a second or more.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** The fields of /proc/PID/stat after the command name, or undefined (no such process, no /proc). */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; the fields after its ')' are space-separated:
    // ppid is field 4, utime and stime fields 14 and 15 (the 2nd, 12th and 13th after the ')').
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const cpuOf = (fields: string[]) => ((Number(fields[11]) + Number(fields[12])) * 1e6) / clockTicks();

/** User + system CPU time of `pid` in microseconds, or undefined where /proc cannot tell. */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const fields = statFields(pid);
  return fields === undefined ? undefined : cpuOf(fields);
}

/**
 * User + system CPU time of every live descendant of `pid` (children, their children...) in
 * microseconds: what a hop's upstream costs when the hop spawned it (a stdio server behind a gateway
 * or a proxy). Undefined where /proc cannot tell; 0 for a process without children.
 */
export function descendantsCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined || statFields(pid) === undefined) return undefined;
  const children = new Map<number, { cpu: number; kids: number[] }>();
  const entry = (id: number) => {
    let e = children.get(id);
    if (!e) {
      e = { cpu: 0, kids: [] };
      children.set(id, e);
    }
    return e;
  };
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(name);
    if (fields === undefined) continue;
    entry(Number(name)).cpu = cpuOf(fields);
    entry(Number(fields[1])).kids.push(Number(name));
  }
  let total = 0;
  const walk = (id: number) => {
    for (const kid of children.get(id)?.kids ?? []) {
      total += children.get(kid)!.cpu;
      walk(kid);
    }
  };
  walk(pid);
  return total;
}

/** Our own user + system CPU time in microseconds. */
export function ownCpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Resident set size of `pid` in bytes from /proc/PID/statm, or undefined. */
export function processRssBytes(pid: number): number | undefined {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return pages * 4096;
  } catch {
    return undefined;
  }
}
