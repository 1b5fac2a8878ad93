import type { LockOwner } from '../storage/archive-lock.js';
import type { StatusStream } from './progress-display.js';

/** Everything the CLI takes from the process, passed in so tests can run `main` in-process. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (live progress) or a log. */
  isTTY: boolean;
  /** Where the live status line is drawn when isTTY: the terminal's stderr stream. */
  statusStream?: StatusStream;
  /**
   * Registers what to do on Ctrl-C or SIGTERM, and the words to print if a second one quits
   * at once; returns an unregister function.
   */
  onInterrupt(handler: () => void, quitNotice?: string): () => void;
  /** Named in the archive while this process crawls it, so a refused crawl can say who holds it. */
  owner: LockOwner;
  version: string;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_INTERRUPTED = 130;
