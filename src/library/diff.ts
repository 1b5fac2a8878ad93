import type { ChangeKind, CrawlChange } from '../storage/public.js';

export type { ChangeKind, CrawlChange };

/**
 * Every kind of change, in the order a report lists them (storage's `CHANGE_KINDS`). A value of its own:
 * the storage door loads the SQLite driver, which building the command line's flags must not.
 */
export const CHANGE_KINDS: readonly ChangeKind[] = ['new', 'changed', 'unchanged', 'redirected', 'gone'];

/** Two crawls of one archive; absent: `to` the latest crawl, `from` the crawl before `to`. */
export interface DiffInput {
  db: string;
  from?: number;
  to?: number;
}

export interface CrawlDiff {
  from: number;
  to: number;
  /** Every URL of either crawl and how it changed, the unchanged included. */
  changes: CrawlChange[];
}

export interface PageDiffInput extends DiffInput {
  /** The page, as typed or as the archive keys it (its normalised form). */
  url: string;
}

export interface PageDiff {
  /** The URL as the archive keys it. */
  url: string;
  from: number;
  to: number;
  /** The text is the same in both crawls. */
  same: boolean;
  /** With the same text: whether the stored bodies differ all the same. */
  bodiesDiffer: boolean;
  /** A unified diff of the page's text, crawl `from` against crawl `to` (empty when `same`). */
  patch: string;
}

type Database = ReturnType<(typeof import('../storage/archive/index.js'))['openArchive']>;

/** Opens the archive read-only for `read`, explaining a file that is no archive as opening it would. */
async function reading<T>(path: string, read: (db: Database, explained: <R>(step: () => R) => R) => Promise<T> | T): Promise<T> {
  const { openArchive, explainOpenError } = await import('../storage/archive/index.js');
  const db = openArchive(path, 'readonly');
  try {
    return await read(db, (step) => {
      try {
        return step();
      } catch (error) {
        return explainOpenError(path, error);
      }
    });
  } finally {
    db.close();
  }
}

/** What changed between two crawls of an archive, as `crawlite diff`. A crawl it lacks rejects with CrawlNumberError. */
export async function diffCrawls(input: DiffInput): Promise<CrawlDiff> {
  const changes = await import('../storage/reader/index.js');
  return reading(input.db, (db, explained) => {
    const { from, to } = explained(() => changes.resolveCrawls(db, input.db, { from: input.from, to: input.to }));
    return { from, to, changes: explained(() => changes.crawlChanges(db, from, to)) };
  });
}

/** How one page's text changed between two crawls, as `crawlite diff --url`; a page not captured in both rejects with NotCapturedError. */
export async function diffPage(input: PageDiffInput): Promise<PageDiff> {
  const [changes, { normalizeUrl }, { captureText }, { createTwoFilesPatch }] = await Promise.all([
    import('../storage/reader/index.js'),
    import('../url/index.js'),
    import('../html/index.js'),
    import('diff'),
  ]);
  return reading(input.db, (db, explained) => {
    const { from, to } = explained(() => changes.resolveCrawls(db, input.db, { from: input.from, to: input.to }));
    const asked = input.url;
    // The archive's key for a URL is its normalised form, as the crawl stored it.
    const normalized = normalizeUrl(asked);
    const url = [asked, 'error' in normalized ? undefined : normalized.key].find(
      (key): key is string => key !== undefined && explained(() => changes.holdsUrl(db, key)),
    );
    if (url === undefined) throw new changes.NotCapturedError(`${asked} is not in the archive`);
    const [before, after] = [from, to].map((crawl) => {
      const found = explained(() => changes.captureInCrawl(db, url, crawl));
      if (!found) throw new changes.NotCapturedError(`${url} was not captured in crawl ${crawl}`);
      return found;
    }) as [Capture, Capture];
    const [a, b] = [captureText(before), captureText(after)];
    const label = (c: Capture) => `crawl ${c.crawl}, ${c.fetched_at}, status ${c.status}${c.revalidated ? ' (304 not modified)' : ''}`;
    if (a === b) return { url, from, to, same: true, bodiesDiffer: !before.body.equals(after.body), patch: '' };
    return { url, from, to, same: false, bodiesDiffer: true, patch: createTwoFilesPatch(url, url, a, b, label(before), label(after)) };
  });
}

type Capture = import('../storage/reader/index.js').CapturedContent;
