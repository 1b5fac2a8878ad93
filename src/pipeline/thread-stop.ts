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

/** Every such thread of this process still running: what endThread() and stopWorkerThreads() end. */
const running = new Map<Worker, Stoppable>();

/** A stop flag, handed to a thread in its workerData. */
export function newStopFlag(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** Whether the thread holding `flag` is to stop; read by the thread before each unit of work. */
export function stopAsked(flag: Int32Array): boolean {
  return Atomics.load(flag, 0) !== 0;
}

/** Counts the thread among those endThread() and stopWorkerThreads() end by itself, until it exits. */
export function stoppable(worker: Worker, thread: Stoppable): void {
  running.set(worker, thread);
  worker.once('exit', () => running.delete(worker));
}

/** Whether `promise` settled within `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ends a thread made stoppable and resolves once it has exited: asked to stop (its flag, then its wake
 * message), or terminated at once when it was never given work (so it cannot be inside zlib), or when it has
 * not ended within STOP_WAIT_MS.
 */
export async function endThread(worker: Worker): Promise<void> {
  const thread = running.get(worker);
  // -1 once the thread has stopped running, possibly before its 'exit' event.
  if (!thread || worker.threadId === -1) return;
  Atomics.store(thread.flag, 0, 1);
  if (thread.idleSinceStart()) return void (await worker.terminate());
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // Waited for: the thread keeps the process alive until it has ended.
  worker.ref();
  worker.postMessage(thread.wake);
  if (!(await settledWithin(exited, STOP_WAIT_MS))) await worker.terminate();
}

/**
 * Ends every parse and gzip thread of this process, each after the unit of work in hand, waiting at most
 * `waitMs`: for a program about to exit at once (process.exit terminates its threads, which aborts Node 20
 * when one is inside zlib). Resolves once they have ended, or when the wait is over.
 */
export async function stopWorkerThreads(waitMs = 1_000): Promise<void> {
  await settledWithin(Promise.all([...running.keys()].map(endThread)), waitMs);
}
