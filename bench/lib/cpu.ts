/**
 * CPU time of a process: our own with `process.cpuUsage()`, another's from `/proc/PID/stat` (Linux;
 * elsewhere server CPU is simply not reported). `/proc` counts in clock ticks (usually 10 ms), fine
 * over windows of a second or more.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/** User + system CPU time of `pid` in microseconds, or undefined where /proc cannot tell. */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields after its ')' are space-separated,
    // utime and stime are fields 14 and 15, i.e. the 12th and 13th after the ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / clockTicks();
  } catch {
    return undefined;
  }
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
