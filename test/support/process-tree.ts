import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { sleep } from './wait.js';

/** A process's children (Linux /proc), or none once it is gone. */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** A process and every process below it, whichever of its threads started them (Chromium forks from several). */
export function processTree(pid: number): number[] {
  const found = [pid];
  for (let i = 0; i < found.length && found.length < 10_000; i += 1) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${found[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        found.push(...readFileSync(`/proc/${found[i]}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
      } catch {
        // The thread ended while being read.
      }
    }
  }
  return found;
}

/** Whether a process still runs: not gone, not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  try {
    const state = /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** A /proc/<pid>/status field in kB (VmRSS, VmHWM), undefined once the process is gone. */
export function memoryKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Samples the peak resident memory (VmHWM) of a process and of its children
 * every `everyMs` until stopped; peaks are kept per pid, as a process's own
 * record is gone once it exits.
 */
export function watchPeakMemory(pid: number, everyMs = 25): { stop: () => Promise<Map<number, number>>; now: () => Map<number, number> } {
  const peaks = new Map<number, number>();
  let running = true;
  const sample = () => {
    for (const each of [pid, ...childPids(pid)]) {
      const kb = memoryKb(each, 'VmHWM');
      if (kb !== undefined) peaks.set(each, Math.max(peaks.get(each) ?? 0, kb));
    }
  };
  const loop = (async () => {
    // Bounded: a test's child runs for seconds, not hours.
    for (let i = 0; running && i < 100_000; i += 1) {
      sample();
      await sleep(everyMs);
    }
  })();
  return {
    now: () => new Map(peaks),
    stop: async () => {
      running = false;
      await loop;
      return peaks;
    },
  };
}

/** Kills every child still running (a test that failed half-way leaves no crawler behind). */
export function killAll(children: ChildProcess[]): void {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** Every child `pid` has had while watched (sampled every `everyMs`): `stop()` ends the watch and lists them. */
export function watchChildren(pid: number, everyMs = 10): { seen: () => number; stop: () => number[] } {
  const seen = new Set<number>();
  const sample = () => {
    for (const child of childPids(pid)) seen.add(child);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    seen: () => seen.size,
    stop: () => {
      clearInterval(timer);
      sample();
      return [...seen];
    },
  };
}
