import type { Readable, Writable } from 'node:stream';
import type { LockOwner } from '../library/index.js';
import type { StatusStream } from './progress-display.js';

/** Everything the CLI takes from the process, passed in so tests can run `main` in-process. */
export interface CliIo {
  /** Writes to stdout; false when the text had to be queued (a slow reader): wait for drain() before writing more. */
  stdout(text: string): boolean | void;
  /** Resolves true once stdout has room again, false if its reader went away (EPIPE, `| head`): stop writing. */
  drain(): Promise<boolean>;
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
  /** The process's own stdin and stdout as streams, for a protocol spoken over them (`crawlite mcp`); absent in-process. */
  protocolStreams?: () => { input: Readable; output: Writable };
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_INTERRUPTED = 130;

/** The stdout side of CliIo for a real stream: back-pressure through drain(); a reader that went away (EPIPE) ends writing quietly. */
export function streamStdout(stream: Writable): Pick<CliIo, 'stdout' | 'drain'> {
  let closed = false;
  const waiting = new Set<(open: boolean) => void>();
  const wake = (open: boolean) => {
    for (const resolve of waiting) resolve(open);
    waiting.clear();
  };
  stream.on('drain', () => wake(true));
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
    wake(false);
  });
  return {
    stdout: (text) => !closed && stream.write(text),
    drain: () => {
      if (closed) return Promise.resolve(false);
      if (!stream.writableNeedDrain) return Promise.resolve(true);
      return new Promise((resolve) => waiting.add(resolve));
    },
  };
}
