import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { DEFAULT_OPTIONS } from '../pipeline/crawl-options.js';
import { asWriteError } from '../storage/archive-errors.js';
import type { LockOwner } from '../storage/archive-lock.js';
import { CrawlRecord, type RunEnd } from '../storage/crawl-record.js';
import { ImportSink } from '../storage/import-sink.js';
import { openCrawlArchive } from '../storage/open-crawl-archive.js';
import { WarcFileError } from './import-errors.js';
import { importWarcs, type ImportHooks, type ImportTally } from './import-warcs.js';

export interface ImportRequest {
  files: string[];
  dbPath: string;
  owner: LockOwner;
  maxBodyBytes?: number;
  /** Told once when the archive waits for a reader to close it. */
  onWait?: (message: string) => void;
}

/** Refuses, before the archive is touched, a file that is missing, a directory or unreadable. */
function checkFiles(files: string[]): void {
  for (const file of files) {
    if (!existsSync(file)) throw new WarcFileError(file, 'no such file');
    if (!statSync(file).isFile()) throw new WarcFileError(file, 'not a file');
    try {
      accessSync(file, constants.R_OK);
    } catch {
      throw new WarcFileError(file, 'not readable');
    }
  }
}

/**
 * Imports WARC files into an archive, new or existing, under the archive's
 * lock like a crawl, as a run of its own (its options say `import` and name
 * the files), so `stats` counts it.
 */
export async function runImport(request: ImportRequest, hooks: ImportHooks): Promise<ImportTally & { runId: number }> {
  checkFiles(request.files);
  const archive = await openCrawlArchive(request.dbPath, 'create', request.owner, request.onWait ? { onWait: request.onWait } : {});
  try {
    const record = new CrawlRecord(archive.db);
    const runId = record.startRun({ import: { files: request.files } }, new Date());
    let endedBy: RunEnd = 'failed';
    try {
      const sink = new ImportSink(archive.db, request.dbPath, runId);
      const settings = {
        maxRedirects: DEFAULT_OPTIONS.maxRedirects,
        maxBodyBytes: request.maxBodyBytes ?? DEFAULT_OPTIONS.maxBodyBytes,
        maxLinksPerPage: DEFAULT_OPTIONS.maxLinksPerPage,
      };
      const tally = await importWarcs(request.files, sink, settings, hooks);
      endedBy = tally.stopped ? 'interrupted' : 'finished';
      return { ...tally, runId };
    } finally {
      try {
        record.endRun(runId, endedBy, new Date());
      } catch {
        // The write that failed the import may fail again; the run then ends at its last page.
      }
    }
  } catch (error) {
    throw asWriteError(request.dbPath, error);
  } finally {
    archive.close();
  }
}
