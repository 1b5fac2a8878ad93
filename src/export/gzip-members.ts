import { availableParallelism } from 'node:os';
import { movableBytes } from '../pipeline/movable-bytes.js';
import type { AppendFile } from './append-file.js';
import { GzipThread } from './gzip-thread.js';

/** Where a member landed in the file. */
export interface Written {
  offset: number;
  length: number;
}

type After = (written: Written) => void | Promise<void>;

/** Records sent to a thread together at most, by bytes and by count: few messages, and none waits long to be sent. */
const BATCH_BYTES = 256 << 10;
const BATCH_RECORDS = 256;

/**
 * Record bytes given and not yet written at most: memory stays flat, and each thread has a few batches in hand.
 * Measured on two cores against 1 MiB batches and 16 MiB: both threads idled less, and the main thread's wait
 * for the last batches at the end is shorter.
 */
const IN_FLIGHT_BYTES = 4 << 20;

/** The main thread keeps a core to itself for reading the archive and building records. */
export const gzipThreadCount = (): number => Math.max(1, Math.min(4, availableParallelism() - 1));

interface Batch {
  records: Uint8Array[];
  afters: (After | undefined)[];
  bytes: number;
}

const emptyBatch = (): Batch => ({ records: [], afters: [], bytes: 0 });

/**
 * Appends records each as its own gzip member, in the order given, while
 * worker threads compress them: gzip is most of an export's CPU, and done
 * here it added to the time spent reading the archive instead of overlapping
 * it. Records cross in batches, each to the thread with the least in hand.
 * What needs a record's offset runs in `after`, in the order the records
 * were given. close() ends the threads, whether the export ended or failed.
 */
export class GzipMembers {
  private readonly threads: GzipThread[];
  private filling = emptyBatch();
  /** Each batch sent, resolving once its members are written and its `after`s have ended, in order. */
  private readonly inOrder: Promise<void>[] = [];
  private tail: Promise<void> = Promise.resolve();
  private inFlight = 0;

  constructor(
    private readonly file: AppendFile,
    threads = gzipThreadCount(),
  ) {
    this.threads = Array.from({ length: Math.max(1, threads) }, () => new GzipThread());
  }

  /**
   * Gives a record to compress; its bytes move to a thread, so the caller must not use them again. Resolves at
   * once while few bytes are outstanding, else once earlier records are written (a real wait, which lets the
   * threads' answers in); rejects if an earlier record failed.
   */
  async write(record: Buffer, after?: After): Promise<void> {
    const batch = this.filling;
    batch.records.push(movableBytes(record));
    batch.afters.push(after);
    batch.bytes += record.byteLength;
    this.inFlight += record.byteLength;
    if (batch.bytes >= BATCH_BYTES || batch.records.length >= BATCH_RECORDS) this.send();
    if (this.inFlight <= IN_FLIGHT_BYTES) return;
    this.send();
    for (let next = this.inOrder.shift(); next; next = this.inOrder.shift()) {
      await next;
      if (this.inFlight <= IN_FLIGHT_BYTES) return;
    }
  }

  /** Waits for every record given to be written, and their `after`s to end. */
  async flush(): Promise<void> {
    this.send();
    // Each is awaited, so the first failure is the one thrown.
    for (let next = this.inOrder.shift(); next; next = this.inOrder.shift()) await next;
  }

  /** Ends the threads; what was not written by then is dropped. */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.close()));
  }

  /** Sends the batch being filled to the thread with the fewest bytes in hand, and queues the writing of its members. */
  private send(): void {
    const batch = this.filling;
    if (batch.records.length === 0) return;
    this.filling = emptyBatch();
    const thread = this.threads.reduce((least, next) => (next.pendingBytes < least.pendingBytes ? next : least));
    const members = thread.compress(batch.records);
    // A failure is awaited through inOrder; this keeps a rejection seen before its turn from being reported as unhandled.
    members.catch(() => undefined);
    const done = this.tail.then(async () => {
      for (const [i, member] of (await members).entries()) {
        const written = await this.file.write(Buffer.from(member.buffer, member.byteOffset, member.byteLength));
        await batch.afters[i]?.(written);
      }
      this.inFlight -= batch.bytes;
    });
    done.catch(() => undefined);
    this.tail = done;
    this.inOrder.push(done);
  }
}
