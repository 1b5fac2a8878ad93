import { open } from 'node:fs/promises';

/** Bytes read by position, as a file handle reads them: a file, or a stretch of one (a WARC stored inside a ZIP). */
export interface RandomAccess {
  /** Reads up to `length` bytes at `position` into `buffer` at `offset`; fewer at the end. */
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/** A WARC that is not a file of its own: named for messages, opened when it is read. */
export interface WarcSource {
  name: string;
  open(): Promise<{ bytes: RandomAccess; size: number }>;
}

/** A WARC to read: a file by its path, or a source such as a WACZ's entry. */
export type WarcInput = string | WarcSource;

/** How messages name the input. */
export const inputName = (input: WarcInput): string => (typeof input === 'string' ? input : input.name);

/** Opens the input for reading by position. */
export async function openInput(input: WarcInput): Promise<{ bytes: RandomAccess; size: number }> {
  if (typeof input !== 'string') return input.open();
  const file = await open(input, 'r');
  try {
    return { bytes: file, size: (await file.stat()).size };
  } catch (error) {
    await file.close();
    throw error;
  }
}
