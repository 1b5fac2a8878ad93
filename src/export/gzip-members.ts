import { availableParallelism } from 'node:os';
import { gzip, gzipSync } from 'node:zlib';
import type { AppendFile } from './append-file.js';

/** Where a member landed in the file. */
export interface Written {
  offset: number;
  length: number;
}

/** Records compressing at once at most: enough to keep every core busy, few enough that memory stays flat. */
const WINDOW = 32;

/** Records on the thread pool at once at most: one per core. */
const OFF_THREAD = availableParallelism();

/**
 * Appends records each as its own gzip member, in the order given, while
 * compressing several at once on libuv's thread pool: gzip is most of an
 * export's CPU, and one thread left the other cores idle. What needs a
 * record's offset runs in `after`, in the order the records were given.
 */
export class GzipMembers {
  private readonly inOrder: Promise<void>[] = [];
  private tail: Promise<void> = Promise.resolve();
  private offThread = 0;

  constructor(private readonly file: AppendFile) {}

  /** Starts compressing the record; resolves once fewer than WINDOW records wait, and rejects if an earlier one failed. */
  async write(record: Buffer, after?: (written: Written) => void | Promise<void>): Promise<void> {
    const member = this.compress(record);
    // A failure is awaited through inOrder; this keeps a rejection seen before its turn from being reported as unhandled.
    member.catch(() => undefined);
    const done = this.tail.then(async () => {
      const written = await this.file.write(await member);
      await after?.(written);
    });
    done.catch(() => undefined);
    this.tail = done;
    this.inOrder.push(done);
    if (this.inOrder.length >= WINDOW) await this.inOrder.shift();
  }

  /**
   * On the thread pool while fewer records than cores are there, else here. zlib's answers reach this thread
   * only when its event loop turns, so sending every record to the pool measured slower than none: the pool
   * idled between records while its threads competed with this one for the cores.
   */
  private compress(record: Buffer): Promise<Buffer> {
    if (this.offThread >= OFF_THREAD) {
      try {
        return Promise.resolve(gzipSync(record));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    this.offThread += 1;
    return new Promise((resolve, reject) =>
      gzip(record, (error, result) => {
        this.offThread -= 1;
        if (error) reject(error);
        else resolve(result);
      }),
    );
  }

  /** Waits for every record given to be written, and their `after`s to end. */
  async flush(): Promise<void> {
    // Each is awaited, so the first failure is the one thrown.
    for (let next = this.inOrder.shift(); next; next = this.inOrder.shift()) await next;
  }
}
