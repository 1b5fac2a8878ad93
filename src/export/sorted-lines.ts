import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { AppendFile } from './append-file.js';

/**
 * Lines given in any order, read back sorted (by UTF-16 code units: byte
 * order for the ASCII of CDXJ keys). Beyond `chunkLines`, each sorted chunk
 * goes to a temporary file and the chunks are merged on reading, so memory
 * stays at one chunk however many lines there are.
 */
export class SortedLines {
  private lines: string[] = [];
  private readonly chunks: string[] = [];
  /** The chunk being written, if any: dispose() waits for it, so no chunk is made after it. */
  private spilling: Promise<void> | undefined;
  private disposed = false;

  constructor(
    /** Where chunk files are made: next to the output. */
    private readonly tempPrefix: string,
    private readonly chunkLines = 100_000,
  ) {}

  async add(line: string): Promise<void> {
    // A record written after the export was stopped still reports its line: there is nothing to sort it into.
    if (this.disposed) return;
    this.lines.push(line);
    if (this.lines.length >= this.chunkLines) await this.spill();
  }

  private spill(): Promise<void> {
    this.spilling = this.writeChunk().finally(() => {
      this.spilling = undefined;
    });
    return this.spilling;
  }

  private async writeChunk(): Promise<void> {
    const path = `${this.tempPrefix}.sort-${this.chunks.length}`;
    this.chunks.push(path);
    const file = new AppendFile(path);
    try {
      for (const line of this.lines.sort()) await file.write(`${line}\n`);
    } finally {
      await file.close();
    }
    this.lines = [];
  }

  /** Every line added, in order. */
  async *sorted(): AsyncGenerator<string> {
    if (this.chunks.length === 0) {
      yield* this.lines.sort();
      return;
    }
    if (this.lines.length > 0) await this.spill();
    const readers = this.chunks.map((path) =>
      createInterface({ input: createReadStream(path), crlfDelay: Infinity })[Symbol.asyncIterator](),
    );
    try {
      const heads = await Promise.all(readers.map((reader) => reader.next()));
      for (;;) {
        let least = -1;
        for (let i = 0; i < heads.length; i += 1) {
          if (heads[i]!.done) continue;
          if (least < 0 || heads[i]!.value < heads[least]!.value) least = i;
        }
        if (least < 0) return;
        yield heads[least]!.value as string;
        heads[least] = await readers[least]!.next();
      }
    } finally {
      for (const reader of readers) await reader.return?.();
    }
  }

  /** Removes the chunk files, once the one being written (if any) is closed: removed sooner, it would be left behind. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.spilling?.catch(() => undefined);
    await Promise.all(this.chunks.map((path) => rm(path, { force: true })));
  }
}
