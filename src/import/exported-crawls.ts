import type { ExportedCrawl } from '../storage/writer/index.js';

/** Crawls read from one warcinfo at most: a hostile WARC cannot make an import create runs without end. */
const MAX_CRAWLS = 1_000;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * The crawls a crawlite warcinfo names, one `crawlite-crawl: {"crawl":1,"startedAt":...}` line each, written
 * by an export of an archive of several crawls; its response and revisit records name theirs (`Crawlite-Crawl`).
 * A line that does not read as one is passed over: its records are then the import's own.
 */
export function warcinfoCrawls(block: Buffer): ExportedCrawl[] {
  const crawls: ExportedCrawl[] = [];
  for (const line of block.toString('utf8').split(/\r?\n/)) {
    const match = /^crawlite-crawl:\s*(.*)$/i.exec(line);
    if (!match || crawls.length >= MAX_CRAWLS) continue;
    let value: unknown;
    try {
      value = JSON.parse(match[1]!);
    } catch {
      continue;
    }
    const crawl = readCrawl(value);
    if (crawl) crawls.push(crawl);
  }
  return crawls;
}

function readCrawl(value: unknown): ExportedCrawl | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { crawl, startedAt, endedAt, endedBy } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(crawl) || (crawl as number) < 1 || (crawl as number) > 1_000_000) return undefined;
  if (typeof startedAt !== 'string' || !ISO_TIME.test(startedAt)) return undefined;
  const ended = typeof endedAt === 'string' && ISO_TIME.test(endedAt) ? endedAt : null;
  const by = typeof endedBy === 'string' && /^[a-z_-]{1,32}$/.test(endedBy) ? endedBy : null;
  return { crawl: crawl as number, startedAt, endedAt: ended, endedBy: by };
}
