import { hostname } from 'node:os';
import type { LockedArchive } from '../storage/crawl-state/index.js';
import type { ArchivePassInput } from './archive-pass-input.js';

/** What a pass checks between batches and tells after each. */
export interface PassHooks {
  stopped: () => boolean;
  onProgress?: (done: number, total: number) => void;
}

/** Opens the archive under the crawl lock, runs the pass, closes it; the result gets the pass's time. */
export async function runArchivePass<R extends object>(
  input: ArchivePassInput,
  pass: (archive: LockedArchive, hooks: PassHooks) => Promise<R>,
): Promise<R & { ms: number }> {
  const [{ checkArchiveFile, NotAnArchiveError }, { LockedArchive }] = await Promise.all([
    import('../storage/archive/index.js'),
    import('../storage/crawl-state/index.js'),
  ]);
  if (checkArchiveFile(input.db)) throw new NotAnArchiveError(input.db, 'an empty file');
  const archive = await LockedArchive.open(
    input.db,
    'create',
    input.owner ?? { pid: process.pid, host: hostname() },
    input.onWait ? { onWait: input.onWait } : {},
  );
  const { signal, onProgress } = input;
  const started = Date.now();
  try {
    const result = await pass(archive, {
      stopped: () => signal?.aborted === true,
      ...(onProgress ? { onProgress: (done: number, total: number) => onProgress({ done, total }) } : {}),
    });
    return { ...result, ms: Date.now() - started };
  } finally {
    archive.close();
  }
}
