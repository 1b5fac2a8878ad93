import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { DEFAULT_OPTIONS } from '../pipeline/crawl-options.js';
import { asWriteError } from '../storage/archive/index.js';
import type { LockOwner } from '../storage/archive/index.js';
import { LockedArchive, type RunEnd } from '../storage/crawl-state/index.js';
import { WarcFileError } from './import-errors.js';
import { importWarcs, type ImportHooks, type ImportTally } from './import-warcs.js';
import { emptyTally } from './import-tally.js';
import { readWarc } from './warc-reader.js';
import { inputName, type WarcInput } from './warc-source.js';
import { applyListedPages } from './wacz/apply-listed-pages.js';
import { expandWaczs } from './wacz/expand-waczs.js';

export interface ImportRequest {
  /** WARC files, and WACZ files whose WARCs are imported in their place. */
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
 * Reads the files up to their first WARC record. Without one in any file (none is a WARC), the problems
 * found are reported and the tally returned, so the import touches no archive; with one, nothing is
 * reported here: the import reads the files again and reports as it goes.
 */
async function withoutRecords(files: WarcInput[], maxContentBytes: number, hooks: ImportHooks): Promise<ImportTally | undefined> {
  const tally = emptyTally();
  const problems: [string, number, string][] = [];
  for (const file of files) {
    tally.files++;
    for await (const entry of readWarc(file, maxContentBytes)) {
      if (!('problem' in entry)) return undefined;
      problems.push([inputName(file), entry.problem.offset, entry.problem.message]);
      if (hooks.stopRequested?.()) {
        tally.stopped = true;
        break;
      }
    }
    if (tally.stopped) break;
  }
  for (const [file, offset, message] of problems) hooks.onProblem(file, offset, message);
  tally.problems = problems.length;
  return tally;
}

/**
 * Imports WARC files into an archive, new or existing, under the archive's
 * lock like a crawl, as a run of its own (its options say `import` and name
 * the files), so `stats` counts it. Files without a single WARC record leave
 * the archive as it was, or uncreated (`runId` is then absent).
 */
export async function runImport(request: ImportRequest, hooks: ImportHooks): Promise<ImportTally & { runId?: number }> {
  checkFiles(request.files);
  const { inputs, waczs } = await expandWaczs(request.files);
  const maxBodyBytes = request.maxBodyBytes ?? DEFAULT_OPTIONS.maxBodyBytes;
  // A record over the size limit is still a record.
  const nothing = await withoutRecords(inputs, maxBodyBytes, hooks);
  if (nothing) return nothing;
  const archive = await LockedArchive.open(request.dbPath, 'create', request.owner, request.onWait ? { onWait: request.onWait } : {});
  try {
    const { record } = archive;
    const runId = record.startRun({ import: { files: request.files } }, new Date());
    let endedBy: RunEnd = 'failed';
    try {
      const sink = archive.importSink(runId);
      const settings = {
        maxRedirects: DEFAULT_OPTIONS.maxRedirects,
        maxBodyBytes,
        maxLinksPerPage: DEFAULT_OPTIONS.maxLinksPerPage,
        compact: sink.compact,
      };
      const tally = await importWarcs(inputs, sink, settings, hooks);
      if (waczs.length === 0) sink.rebuildKindsAndDepths(tally.roots);
      else tally.listedPages = await applyListedPages(waczs, runId, sink, tally.roots);
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
