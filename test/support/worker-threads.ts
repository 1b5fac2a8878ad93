import type { Worker } from 'node:worker_threads';

/**
 * What `make` returns, once `ready` has resolved, with the exit code of each worker thread it created:
 * 1 for a thread terminated, 0 for one that ended by itself.
 */
export async function threadsOf<T>(make: () => T, ready: (made: T) => Promise<unknown>): Promise<{ made: T; exits: Promise<number>[] }> {
  const workers: Worker[] = [];
  const created = (worker: Worker) => workers.push(worker);
  process.on('worker', created);
  try {
    const made = make();
    await ready(made);
    return { made, exits: workers.map((worker) => new Promise<number>((resolve) => worker.once('exit', resolve))) };
  } finally {
    process.off('worker', created);
  }
}
