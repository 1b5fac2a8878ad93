import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';

/** Appends to a new file, waiting when the disk falls behind, and knows the offset of what it writes. */
export class AppendFile {
  private readonly stream: WriteStream;
  private failure: Error | undefined;
  /** Bytes written so far: the offset of the next record. */
  offset = 0;

  constructor(path: string) {
    this.stream = createWriteStream(path, { flags: 'wx' });
    this.stream.on('error', (error) => {
      this.failure = error;
    });
  }

  /** Writes a chunk (one record, one line); resolves with its offset and length in the file. */
  async write(record: Buffer | string): Promise<{ offset: number; length: number }> {
    if (this.failure) throw this.failure;
    const offset = this.offset;
    const bytes = typeof record === 'string' ? Buffer.from(record, 'utf8') : record;
    this.offset += bytes.length;
    if (!this.stream.write(bytes)) await this.drained();
    if (this.failure) throw this.failure;
    return { offset, length: bytes.length };
  }

  /** Resolves on 'drain' or 'error', whichever comes first, and leaves no listener behind (a race of two `once` would leave one per wait). */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.stream.off('drain', done);
        this.stream.off('error', done);
        resolve();
      };
      this.stream.on('drain', done);
      this.stream.on('error', done);
    });
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    if (this.stream.closed) return;
    const closed = once(this.stream, 'close');
    this.stream.end();
    await closed;
    if (this.failure) throw this.failure;
  }

  /**
   * Drops what is still buffered (an export that failed) and resolves once the file is closed: the
   * file is opened asynchronously, so removing it before then would let the open create it again.
   */
  async destroy(): Promise<void> {
    if (this.stream.closed) return;
    const closed = once(this.stream, 'close');
    this.stream.destroy();
    await closed;
  }
}
