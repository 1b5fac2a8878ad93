import { normalizeUrl } from '../url/index.js';
import type { ParseSettings } from '../pipeline/parse/parse-response.js';
import type { ImportSink } from '../storage/writer/index.js';
import { exchangePage } from './exchange-page.js';
import { pairExchanges } from './pair-exchanges.js';
import type { ImportTally } from './import-tally.js';
import { readWarc, type WarcEntry } from './warc-reader.js';

export type { ImportTally };

export interface ImportHooks {
  /** Damaged input: the file, the offset of the record (or its gzip member) and what is wrong. */
  onProblem(file: string, offset: number, message: string): void;
  /** A response or revisit not imported, and why. */
  onSkip?(file: string, offset: number, code: string, message: string): void;
  /** Called after each batch is committed. */
  onProgress?(tally: ImportTally): void;
  /** Polled between records: true to stop after committing what was read. */
  stopRequested?(): boolean;
}

export interface ImportSettings extends ParseSettings {
  /** Records per transaction: a kill -9 loses at most the batch being written. */
  batchRecords?: number;
}

const BATCH_RECORDS = 200;
/** Roots read from warcinfo records at most: a hostile WARC cannot make the walk start everywhere. */
const MAX_ROOTS = 10_000;

/** The roots a warcinfo names (`crawlite-roots: URL URL...`), as archive keys; lines of other fields are passed over. */
function warcinfoRoots(block: Buffer): string[] {
  const roots: string[] = [];
  for (const line of block.toString('utf8').split(/\r?\n/)) {
    const match = /^crawlite-roots:\s*(.*)$/i.exec(line);
    if (!match) continue;
    for (const url of match[1]!.split(/\s+/)) {
      const normalized = url === '' ? undefined : normalizeUrl(url);
      if (normalized && !('error' in normalized) && roots.length < MAX_ROOTS) roots.push(normalized.key);
    }
  }
  return roots;
}
/** Body bytes per transaction, so a batch of large records is committed sooner. */
const BATCH_BYTES = 32 * 1024 * 1024;

async function* counted(entries: AsyncIterable<WarcEntry>, tally: ImportTally): AsyncGenerator<WarcEntry> {
  for await (const entry of entries) {
    if (!('problem' in entry)) tally.records++;
    yield entry;
  }
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/**
 * Imports WARC files into an archive, one after the other, streaming: each
 * response becomes a page with its links, committed in batches. Damaged input
 * is reported and passed over; what was read before it stays committed.
 */
export async function importWarcs(files: string[], sink: ImportSink, settings: ImportSettings, hooks: ImportHooks): Promise<ImportTally> {
  const tally: ImportTally = { files: 0, records: 0, pages: 0, revisits: 0, skipped: {}, otherRecords: {}, problems: 0, stopped: false, roots: [] };
  const batchRecords = settings.batchRecords ?? BATCH_RECORDS;
  let inBatch = 0;
  let batchBytes = 0;
  const commit = () => {
    sink.commit();
    inBatch = 0;
    batchBytes = 0;
    hooks.onProgress?.(tally);
  };
  try {
    for (const file of files) {
      tally.files++;
      // A record too large to hold is passed over unread: bodies over --max-body are not stored by a crawl either.
      const maxContent = settings.maxBodyBytes + 1024 * 1024;
      for await (const entry of pairExchanges(counted(readWarc(file, maxContent), tally))) {
        if ('problem' in entry) {
          tally.problems++;
          hooks.onProblem(file, entry.problem.offset, entry.problem.message);
        } else if ('skipped' in entry) {
          bump(tally.skipped, 'body_too_large');
          hooks.onSkip?.(file, entry.skipped.offset, 'body_too_large', `a ${entry.skipped.type} record of ${entry.skipped.length} bytes (--max-body)`);
        } else if ('other' in entry) {
          bump(tally.otherRecords, entry.other.type || 'untyped');
          if (entry.other.type === 'warcinfo') tally.roots.push(...warcinfoRoots(entry.other.content));
        } else {
          const result = await exchangePage(entry.exchange, sink, settings);
          if ('code' in result) {
            bump(tally.skipped, result.code);
            hooks.onSkip?.(file, entry.exchange.response.offset, result.code, result.message);
          } else {
            const { fields } = entry.exchange.response;
            const stored = sink.write(result.page);
            // A revisit's own digest names the same payload; only originals are remembered.
            if (!result.revisit) sink.rememberPayload(fields.get('warc-record-id') ?? null, fields.get('warc-payload-digest') ?? null, result.page.url, stored);
            tally.pages++;
            if (result.revisit) tally.revisits++;
            inBatch++;
            batchBytes += result.page.response.body.byteLength;
            if (inBatch >= batchRecords || batchBytes >= BATCH_BYTES) commit();
          }
        }
        if (hooks.stopRequested?.()) {
          tally.stopped = true;
          break;
        }
      }
      if (tally.stopped) break;
    }
    commit();
  } catch (error) {
    sink.rollback();
    throw error;
  }
  return tally;
}
