import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import { AppendFile } from '../src/export/append-file.js';
import { GzipMembers, type Written } from '../src/export/gzip-members.js';
import { tempDir } from './support/archive.js';

// Records are compressed in batches on gzip threads, several at once: the file must still hold them in the
// order given, each its own gzip member at the offset its `after` was told, the same bytes gzipSync makes.

const tmp = tempDir();
afterAll(() => tmp.cleanup());

it('appends each record as its own member, in order, at the offsets it reports', async () => {
  const path = tmp.path('members.gz');
  const file = new AppendFile(path);
  // Two threads, so a batch can overtake an earlier one.
  const members = new GzipMembers(file, 2);
  // Sizes that differ a lot, so a small record started later would finish first if order were not kept.
  const records = Array.from({ length: 200 }, (_, i) => Buffer.from(`record ${i} `.repeat(i % 7 === 0 ? 20_000 : 3)));
  const told: { index: number; written: Written }[] = [];
  try {
    // Copies: what is written moves to a thread.
    for (const [index, record] of records.entries())
      await members.write(Buffer.from(record), (written) => void told.push({ index, written }));
    await members.flush();
  } finally {
    await members.close();
  }
  await file.close();

  expect(told.map((entry) => entry.index)).toEqual(records.map((_, i) => i));
  const bytes = readFileSync(path);
  let end = 0;
  for (const { index, written } of told) {
    expect(written.offset).toBe(end);
    end = written.offset + written.length;
    expect(gunzipSync(bytes.subarray(written.offset, end)).equals(records[index]!)).toBe(true);
    expect(bytes.subarray(written.offset, end).equals(gzipSync(records[index]!))).toBe(true);
  }
  expect(end).toBe(bytes.length);
});

it('rejects the writes after a failed one, and flush reports it', async () => {
  const file = new AppendFile(tmp.path('missing-dir/members.gz'));
  const members = new GzipMembers(file);
  let failed: unknown;
  try {
    for (let i = 0; i < 100; i += 1) await members.write(Buffer.from(`record ${i}`));
    await members.flush();
  } catch (error) {
    failed = error;
  } finally {
    await members.close();
  }
  expect((failed as NodeJS.ErrnoException | undefined)?.code).toBe('ENOENT');
});
