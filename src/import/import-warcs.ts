import { normalizeUrl } from '../url/index.js';
import type { ParseSettings } from '../pipeline/parse/parse-response.js';
import type { ImportSink } from '../storage/writer/index.js';
import { availableParallelism } from 'node:os';
import { ParsePool, type Parsed } from '../pipeline/parse/parse-pool.js';
import { parseResponse, type ParseResult } from '../pipeline/parse/parse-response.js';
import type { ClaimedUrl } from '../pipeline/ports.js';
import {
  claimOf,
  exchangePage,
  parseJobOf,
  readAlike,
  readExchange,
  refersToOf,
  REVISIT_UNRESOLVED,
  type ExchangePage,
  type ImportSkip,
  type ReadExchange,
} from './exchange-page.js';
import { pairExchanges, targetUri, type Exchange, type PairedEntry } from './pair-exchanges.js';
import { emptyTally, type ImportTally } from './import-tally.js';
import { readWarc, type WarcEntry } from './warc-reader.js';
import { screenshotOf } from './import-screenshot.js';
import { inputName, type WarcInput } from './warc-source.js';
import { exchangeOf, setAsideOf } from './set-aside-exchange.js';
import { warcinfoCrawls } from './exported-crawls.js';

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
/** Records read ahead of the one being written, and bytes of their content, at most: what a parse thread has to work on meanwhile. */
const READ_AHEAD = 32;
const READ_AHEAD_BYTES = 16 * 1024 * 1024;
const YIELD_EVERY = 8;
/** Revisits set aside read back at a time, after the last file. */
const SET_ASIDE_READ = 64;
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

/** A response being read ahead of its turn: the record read, the claim its parse was given, and that parse. */
interface Reading {
  read: ReadExchange | ImportSkip;
  claim?: ClaimedUrl;
  parsing?: Promise<Parsed>;
}

/** An entry of the file waiting for its turn to be written, and for a response, its reading. */
interface Ahead {
  entry: PairedEntry;
  reading?: Promise<Reading>;
  bytes: number;
}

/**
 * The page a response makes, at its turn. Its parse began when it was read
 * ahead, with the URL as the archive knew it then; an earlier record may
 * since have found the URL (a new kind or depth), and then the response is
 * read again as the archive knows it now, so the result never depends on
 * how far ahead it was read.
 */
async function pageAtTurn(reading: Reading, sink: ImportSink, settings: ParseSettings): Promise<ExchangePage | ImportSkip> {
  const { read } = reading;
  if ('code' in read) return read;
  const claim = claimOf(read, sink);
  let body = read.answer.body;
  let parsed: ParseResult | undefined;
  let digests: { sha256: Buffer; sha1: Buffer; stored?: Buffer } | undefined;
  if (reading.parsing) {
    const done = await reading.parsing;
    body = done.body;
    parsed = done.result;
    digests = { sha256: done.sha256, sha1: done.sha1, ...(done.stored ? { stored: done.stored } : {}) };
  }
  if (!reading.claim || !readAlike(claim, reading.claim)) {
    const job = parseJobOf(read, claim, body);
    parsed = job ? parseResponse(job, settings) : undefined;
  }
  return exchangePage(read, claim, body, parsed, settings, digests);
}

/**
 * Imports WARC files into an archive, one after the other, streaming: each
 * response becomes a page with its links, committed in batches. Damaged input
 * is reported and passed over; what was read before it stays committed.
 * Responses are read a few records ahead of the one being written, and their
 * HTML parsed on a parse thread meanwhile; each is written in its turn.
 */
export async function importWarcs(
  files: WarcInput[],
  sink: ImportSink,
  settings: ImportSettings,
  hooks: ImportHooks,
): Promise<ImportTally> {
  const tally = emptyTally();
  const batchRecords = settings.batchRecords ?? BATCH_RECORDS;
  const parser = new ParsePool(availableParallelism() - 1);
  /** The run of each crawl a file's warcinfo names, by file and crawl number: what a record's Crawlite-Crawl points at. */
  const crawlRuns = new Map<string, number>();
  const crawlKey = (file: string, crawl: string | number) => `${crawl}\n${file}`;
  let inBatch = 0;
  let batchBytes = 0;
  let readCount = 0;
  const commit = () => {
    sink.commit();
    inBatch = 0;
    batchBytes = 0;
    hooks.onProgress?.(tally);
  };

  /** Reads a response without the archive, and starts its parse on a thread with the URL as the archive knows it now. */
  const readAhead = async (exchange: Exchange): Promise<Reading> => {
    const read = await readExchange(exchange, sink, settings);
    if ('code' in read) return { read };
    const claim = claimOf(read, sink);
    const job = parseJobOf(read, claim, read.answer.body);
    return job ? { read, claim, parsing: parser.parse(job, settings) } : { read, claim };
  };

  /**
   * Why a revisit is not imported after the last file: its original was read and not imported, or the
   * import was stopped before reading on, or it is in no file imported (nor in the archive).
   */
  const unresolved = (exchange: Exchange, uri: string): string => {
    const skipped = sink.skippedOriginal(refersToOf(exchange.response, uri));
    if (skipped) return `a revisit record whose original was not imported (${skipped})`;
    if (tally.stopped) return 'a revisit record whose original was not among the records read before the import was stopped';
    return `${REVISIT_UNRESOLVED.message} nor in the archive`;
  };

  /** Writes an entry at its turn; a revisit whose original is not known yet is set aside, unless this is its last chance (`final`). */
  const write = async (file: string, { entry, reading }: Ahead, final = false): Promise<void> => {
    if ('problem' in entry) {
      tally.problems++;
      hooks.onProblem(file, entry.problem.offset, entry.problem.message);
    } else if ('skipped' in entry) {
      bump(tally.skipped, 'body_too_large');
      hooks.onSkip?.(
        file,
        entry.skipped.offset,
        'body_too_large',
        `a ${entry.skipped.type} record of ${entry.skipped.length} bytes (--max-body)`,
      );
    } else if ('other' in entry) {
      const shot = screenshotOf(entry.other);
      if (shot && sink.screenshot(shot.key, shot.fetchedAt, shot.shot)) tally.screenshots++;
      else bump(tally.otherRecords, entry.other.type || 'untyped');
      if (entry.other.type === 'warcinfo') {
        tally.roots.push(...warcinfoRoots(entry.other.content));
        for (const crawl of warcinfoCrawls(entry.other.content))
          crawlRuns.set(crawlKey(file, crawl.crawl), sink.crawlRun(crawl, files.map(inputName)));
      }
    } else {
      // A revisit's payload is a record written before it: it is read at its turn.
      const result = await pageAtTurn(
        await (reading ?? readExchange(entry.exchange, sink, settings).then((read) => ({ read }))),
        sink,
        settings,
      );
      if (result === REVISIT_UNRESOLVED && !final) {
        // Its original may come later in this file or another: it is read again after the last file.
        sink.setAside(setAsideOf(file, entry.exchange));
        return;
      }
      const { response } = entry.exchange;
      if ('code' in result) {
        const uri = targetUri(response);
        const message = result === REVISIT_UNRESOLVED && uri ? unresolved(entry.exchange, uri) : result.message;
        // A response not imported is noted, so that a revisit of it says why.
        if (response.type !== 'revisit' && uri)
          sink.rememberSkipped(
            response.fields.get('warc-record-id') ?? null,
            response.fields.get('warc-payload-digest') ?? null,
            uri,
            result.code,
          );
        bump(tally.skipped, result.code);
        hooks.onSkip?.(file, response.offset, result.code, message);
        return;
      }
      const { fields } = response;
      // A crawlite export of several crawls says which crawl each capture is of, and which were 304s.
      const run = crawlRuns.get(crawlKey(file, fields.get('crawlite-crawl')?.trim() ?? ''));
      if (run !== undefined) result.page.runId = run;
      if (result.revisit && fields.has('crawlite-revalidated')) result.page.revalidated = true;
      const stored = sink.write(result.page);
      // A revisit's own digest names the same payload; only originals are remembered.
      if (!result.revisit)
        sink.rememberPayload(fields.get('warc-record-id') ?? null, fields.get('warc-payload-digest') ?? null, result.page.url, stored);
      tally.pages++;
      if (result.revisit) tally.revisits++;
      if (stored.merged) tally.merged++;
      inBatch++;
      batchBytes += result.page.response.body.byteLength;
      if (inBatch >= batchRecords || batchBytes >= BATCH_BYTES) commit();
    }
  };

  try {
    for (const input of files) {
      const file = inputName(input);
      tally.files++;
      // A record too large to hold is passed over unread: bodies over --max-body are not stored by a crawl either.
      const maxContent = settings.maxBodyBytes + 1024 * 1024;
      const ahead: Ahead[] = [];
      let aheadBytes = 0;
      const writeNext = async () => {
        const next = ahead.shift()!;
        aheadBytes -= next.bytes;
        await write(file, next);
      };
      for await (const entry of pairExchanges(counted(readWarc(input, maxContent), tally))) {
        const item: Ahead = { entry, bytes: 0 };
        if ('exchange' in entry && entry.exchange.response.type !== 'revisit') {
          item.bytes = entry.exchange.response.content.byteLength;
          item.reading = readAhead(entry.exchange);
          // A failure is met at the record's turn; one read ahead of a failure before it is never awaited.
          item.reading.catch(() => undefined);
        }
        ahead.push(item);
        aheadBytes += item.bytes;
        // Reading is mostly synchronous: the event loop is turned now and then, so that what was read ahead
        // reaches the parse thread in small batches and its answers are taken in as they come.
        if ((readCount += 1) % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
        while (ahead.length > READ_AHEAD || aheadBytes > READ_AHEAD_BYTES) await writeNext();
        if (hooks.stopRequested?.()) {
          tally.stopped = true;
          break;
        }
      }
      // What was read is written, a stop included.
      while (ahead.length) await writeNext();
      if (tally.stopped) break;
    }
    // The revisits whose original was not known at their turn, in the order they were read, against everything imported.
    for (let seq = 0, kept = sink.setAsideAfter(seq, SET_ASIDE_READ); kept.length; kept = sink.setAsideAfter(seq, SET_ASIDE_READ)) {
      for (const revisit of kept) {
        await write(revisit.file, { entry: { exchange: exchangeOf(revisit) }, bytes: 0 }, true);
        sink.dropSetAside(revisit.seq);
        seq = revisit.seq;
      }
    }
    commit();
  } catch (error) {
    sink.rollback();
    throw error;
  } finally {
    await parser.close();
  }
  return tally;
}
