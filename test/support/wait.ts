import type { ChildProcess } from 'node:child_process';
import type { CliRun } from './cli.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `condition` holds, bounded in count and time; the error says what was awaited, and `detail()` if given. */
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 15_000, detail?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 20_000 && Date.now() < deadline; i += 1) {
    if (condition()) return;
    await sleep(5);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? ` (${detail()})` : ''}`);
}

/** Runs `run` while sampling `count` every 5 ms (at most 2,000 times): its result, and the most `count` was seen at. */
/** waitFor for a condition that must be asked for (a query to a server), every 50 ms, bounded in count and time. */
export async function waitForAsync(what: string, condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 10_000 && Date.now() < deadline; i += 1) {
    if (await condition()) return;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export async function mostDuring<T>(run: () => Promise<T>, count: () => number): Promise<{ result: T; most: number }> {
  let most = count();
  let watching = true;
  const watch = (async () => {
    for (let i = 0; watching && i < 2_000; i += 1) {
      most = Math.max(most, count());
      await sleep(5);
    }
  })();
  try {
    return { result: await run(), most };
  } finally {
    watching = false;
    await watch;
  }
}

/** Races `promise` against a timer whose `onTimeout` settles the race after `ms`; the timer is cleared either way. */
function raceTimer<T, U>(
  promise: Promise<T>,
  ms: number,
  onTimeout: (resolve: (value: U) => void, reject: (error: Error) => void) => void,
): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<U>((resolve, reject) => {
    timer = setTimeout(() => onTimeout(resolve, reject), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The child's exit (or any promise's value), or null if it is still running after `ms`. */
export function exitWithin<T>(exited: Promise<T>, ms: number): Promise<T | null> {
  return raceTimer<T, null>(exited, ms, (resolve) => resolve(null));
}

/**
 * Resolves with `run`, or rejects if it takes longer than `ms`: "<what> did not
 * end within <ms> ms". `what` may be a function, to say what was seen by then;
 * `onTimeout` runs first (to kill a child, say).
 */
export function within<T>(run: Promise<T>, ms: number, what: string | (() => string), onTimeout?: () => void): Promise<T> {
  return raceTimer<T, never>(run, ms, (_resolve, reject) => {
    onTimeout?.();
    reject(new Error(`${typeof what === 'string' ? what : what()} did not end within ${ms} ms`));
  });
}

/**
 * Polls (every 2 ms, so a kill lands close to the count) until `server` has
 * counted `target` requests in all; fails at once, with what the child printed,
 * if the crawler `child` exits first.
 */
export async function waitForHits(
  server: { totalHits(): number },
  target: number,
  child: ChildProcess & { output(): CliRun },
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 20_000 && Date.now() < deadline; i++) {
    if (server.totalHits() >= target) return;
    if (child.exitCode !== null || child.signalCode !== null) break;
    await sleep(2);
  }
  throw new Error(
    `server saw ${server.totalHits()} requests, not ${target}, within ${timeoutMs} ms ` +
      `(crawler exit code ${child.exitCode}, signal ${child.signalCode}; stderr: ${child.output().stderr.trim()})`,
  );
}
