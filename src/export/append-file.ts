import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';

const destroyedError = () =>
  Object.assign(new Error('the file was destroyed: the export failed or was stopped'), { code: 'ERR_STREAM_DESTROYED' });

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
    if (this.stream.destroyed) throw destroyedError();
    if (!this.stream.write(bytes)) await this.drained();
    if (this.failure) throw this.failure;
    if (this.stream.destroyed) throw destroyedError();
    return { offset, length: bytes.length };
  }

  /**
   * Resolves on 'drain', 'error' or 'close', whichever comes first (a file destroyed meanwhile never
   * drains), and leaves no listener behind (a race of `once`s would leave one per wait).
   */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.stream.off('drain', done);
        this.stream.off('error', done);
        this.stream.off('close', done);
        resolve();
      };
      this.stream.on('drain', done);
      this.stream.on('error', done);
      this.stream.on('close', done);
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
    // Not once(): it rejects on an 'error' first, such as that of a write still under way, which is not this caller's to report.
    const closed = new Promise<void>((resolve) => this.stream.once('close', () => resolve()));
    this.stream.destroy();
    await closed;
  }
}
