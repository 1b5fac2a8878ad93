import { hostname } from 'node:os';
import type { LockOwner } from '../storage/public.js';

/** Markdown made for the HTML pages of an archive crawled or imported without it. */
export interface MarkdownInput {
  /** An existing archive; never created. */
  db: string;
  /** Named in the archive while the run writes it; this process by default. */
  owner?: LockOwner;
  /** Told once when the archive waits for a reader to close it. */
  onWait?: (message: string) => void;
  /** Told after each batch of pages commits. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Aborting it ends the run between two batches; what is committed stays, and a rerun goes on. */
  signal?: AbortSignal;
}

export interface MarkdownReport {
  /** Pages given their Markdown by this run. */
  converted: number;
  /** HTML pages whose latest capture had no Markdown (or an older version's) when the run began. */
  total: number;
  stopped: boolean;
  ms: number;
}

/**
 * Stores the main content of each HTML page's latest capture as Markdown (the `page_markdown` view), under
 * the lock a crawl takes. Read it back with `openArchive(path).markdown(url)`.
 */
export async function markdown(input: MarkdownInput): Promise<MarkdownReport> {
  const [{ checkArchiveFile, NotAnArchiveError }, { LockedArchive }, { pageMarkdown, MARKDOWN_VERSION }, { decodeHtml }] =
    await Promise.all([
      import('../storage/archive/index.js'),
      import('../storage/crawl-state/index.js'),
      import('../markdown/index.js'),
      import('../html/index.js'),
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
    const result = await archive.fillMarkdown({
      convert: (body, contentType, url) => pageMarkdown(decodeHtml(body, contentType).text, url),
      version: MARKDOWN_VERSION,
      stopped: () => signal?.aborted === true,
      ...(onProgress ? { onProgress: (done: number, total: number) => onProgress({ done, total }) } : {}),
    });
    return { ...result, ms: Date.now() - started };
  } finally {
    archive.close();
  }
}
