import type { Worker } from 'node:worker_threads';

// Terminating a worker thread while zlib sets up a stream aborts Node 20 ("close before init"), taking the
// whole process down. So a thread that may be compressing ends by itself: a flag in shared memory, read
// between two units of work, tells it to drop what it holds; a message wakes it when idle. It is
// terminated only if it has not ended in time, or when it never started any work.

/** How long a thread asked to stop may take to end by itself (it stops after the unit of work in hand). */
export const STOP_WAIT_MS = 10_000;

/** A thread that ends by itself when asked: its flag, the message that wakes it, and whether it was never given work. */
interface Stoppable {
  flag: Int32Array;
  wake: unknown;
  idleSinceStart: () => boolean;
}

/** Every such thread of this process still running: what stopWorkerThreads() ends before a quit at once. */
const running = new Map<Worker, Stoppable>();

/** A stop flag, handed to a thread in its workerData. */
export function newStopFlag(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** Counts the thread among those stopWorkerThreads() ends, until it exits. */
export function stoppable(worker: Worker, thread: Stoppable): void {
  running.set(worker, thread);
  worker.once('exit', () => running.delete(worker));
}

/**
 * Ends every parse and gzip thread of this process, each after the unit of work in hand, waiting at most
 * `waitMs`: for a program about to exit at once (process.exit terminates its threads, which aborts Node 20
 * when one is inside zlib). Resolves once they have ended, or when the wait is over.
 */
export async function stopWorkerThreads(waitMs = 1_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
  });
  const ended = Promise.all([...running].map(([worker, thread]) => endThread(worker, thread.flag, thread.wake, thread.idleSinceStart())));
  try {
    await Promise.race([ended, over]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the thread holding `flag` is to stop; read by the thread before each unit of work. */
export function stopAsked(flag: Int32Array): boolean {
  return Atomics.load(flag, 0) !== 0;
}

/**
 * Ends a thread and resolves once it has exited: asked to stop (the flag, then `wake` posted), or terminated
 * at once when `idleSinceStart` (it was never given work, so it cannot be inside zlib).
 */
export async function endThread(worker: Worker, flag: Int32Array, wake: unknown, idleSinceStart: boolean): Promise<void> {
  // -1 once the thread has stopped running, possibly before its 'exit' event.
  if (worker.threadId === -1) return;
  Atomics.store(flag, 0, 1);
  if (idleSinceStart) return void (await worker.terminate());
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // Waited for: the thread keeps the process alive until it has ended.
  worker.ref();
  worker.postMessage(wake);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), STOP_WAIT_MS);
  });
  try {
    if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
  } finally {
    clearTimeout(timer);
  }
}
