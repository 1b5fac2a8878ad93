import { EXIT_INTERRUPTED } from './io.js';
import type { CommandContext } from './commands/context.js';

/** What a command tells its library call while it runs. */
export interface RunningTask {
  /** Aborted by Ctrl-C (or SIGTERM), or by abort(): hand it to the library call. */
  readonly signal: AbortSignal;
  /** Ends the task from inside, not as an interruption: e.g. the reader of its output went away (`| head`). */
  abort(): void;
}

export interface TaskSpec<T> {
  /** Printed on stderr at the first Ctrl-C, while the task finishes what it must. */
  stopping?: string;
  /** Printed if a second Ctrl-C quits at once. */
  quitNotice?: string;
  /** Whether the result says the task ended early (the library's `stopped`); by default, whether Ctrl-C was pressed. */
  stopped?: (result: T) => boolean;
  /** The task's library call rejects when aborted (nothing is left behind): after Ctrl-C that is the interruption, not an error. */
  rejectsOnAbort?: boolean;
  /** The line printed on stderr when Ctrl-C ended the task; none when absent. */
  interrupted?: (result: T | undefined) => string | undefined;
  /** Runs last, interrupted or not, failed or not: e.g. clearing a live progress line. */
  cleanup?: () => void;
}

/** How the task ended: `interrupted` when Ctrl-C ended it (the exit code is then 130); `result` unless its call rejected. */
export type TaskEnd<T> = { interrupted: false; result: T } | { interrupted: true; result: T | undefined };

/**
 * The shape every long command shares: Ctrl-C aborts the task's signal, the task ends early with what it
 * committed, and the command exits 130 with one line saying so. An error that is no interruption is thrown.
 */
export async function runInterruptible<T>(
  context: CommandContext,
  work: (task: RunningTask) => Promise<T>,
  spec: TaskSpec<T>,
): Promise<TaskEnd<T>> {
  const { io } = context;
  const control = new AbortController();
  let interrupted = false;
  const unlisten = io.onInterrupt(() => {
    interrupted = true;
    if (spec.stopping !== undefined) io.stderr(spec.stopping);
    control.abort();
  }, spec.quitNotice);
  const interruption = (result: T | undefined): TaskEnd<T> => {
    const line = spec.interrupted?.(result);
    if (line !== undefined) io.stderr(line);
    context.exitCode = EXIT_INTERRUPTED;
    return { interrupted: true, result };
  };
  let result: T;
  try {
    result = await work({ signal: control.signal, abort: () => control.abort() });
  } catch (error) {
    if (!(spec.rejectsOnAbort && interrupted)) throw error;
    return interruption(undefined);
  } finally {
    spec.cleanup?.();
    unlisten();
  }
  if (interrupted && (spec.stopped?.(result) ?? true)) return interruption(result);
  return { interrupted: false, result };
}
