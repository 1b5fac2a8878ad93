import { readdirSync, readFileSync } from 'node:fs';

/** A process's children, over all its threads (Linux /proc); none once it is gone. */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const task of tasks) {
    try {
      for (const each of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' '))
        if (each.trim()) children.push(Number(each));
    } catch {
      // The thread ended while being read.
    }
  }
  return children;
}

/** `pid` and every process below it, breadth first; bounded, as a tree that forks forever would not end. */
export function processTree(pid: number, limit = 10_000): number[] {
  const found = [pid];
  for (let i = 0; i < found.length && found.length < limit; i += 1) found.push(...childrenOf(found[i]!));
  return found;
}

/**
 * A process's share of resident memory in bytes (PSS: a page shared by n processes counts 1/n), or its
 * whole RSS where the kernel does not tell PSS; 0 once it is gone.
 */
function residentShareBytes(pid: number): number {
  try {
    const kb = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    // No smaps_rollup (an old kernel, or the process is gone): its RSS, below.
  }
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * The resident memory of a process tree. Chromium's processes share most of their pages (the
 * program, its libraries): summing their RSS would count those once per process, several times the
 * memory really held, so their PSS is summed.
 */
export function treeRssBytes(pid: number): number {
  return processTree(pid).reduce((sum, each) => sum + residentShareBytes(each), 0);
}

/** The child of this process whose command line holds `marker`, or undefined. */
export function childWithArgument(marker: string): number | undefined {
  for (const pid of childrenOf(process.pid)) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(marker)) return pid;
    } catch {
      // Gone while being read.
    }
  }
  return undefined;
}

/** When a process started (clock ticks since boot): tells a process from a later one given its PID. */
export function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
