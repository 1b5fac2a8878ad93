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

/** Reads the archive, opened read-only, with `read`; a file that is no archive is explained as opening it would. */
async function reading<T>(path: string, read: (archive: ArchiveFacts) => Promise<T> | T): Promise<T> {
  const { ArchiveFacts } = await import('../storage/reader/index.js');
  const archive = ArchiveFacts.open(path);
  try {
    return await read(archive);
  } finally {
    archive.close();
  }
}

/** What changed between two crawls of an archive, as `crawlite diff`. A crawl it lacks rejects with CrawlNumberError. */
export async function diffCrawls(input: DiffInput): Promise<CrawlDiff> {
  return reading(input.db, (archive) => {
    const { from, to } = archive.resolveCrawls({ from: input.from, to: input.to });
    return { from, to, changes: archive.crawlChanges(from, to) };
  });
}

/** How one page's text changed between two crawls, as `crawlite diff --url`; a page not captured in both rejects with NotCapturedError. */
export async function diffPage(input: PageDiffInput): Promise<PageDiff> {
  const [{ NotCapturedError }, { normalizeUrl }, { captureText }, { createTwoFilesPatch }] = await Promise.all([
    import('../storage/reader/index.js'),
    import('../url/index.js'),
    import('../html/index.js'),
    import('diff'),
  ]);
  return reading(input.db, (archive) => {
    const { from, to } = archive.resolveCrawls({ from: input.from, to: input.to });
    const asked = input.url;
    // The archive's key for a URL is its normalised form, as the crawl stored it.
    const normalized = normalizeUrl(asked);
    const url = [asked, 'error' in normalized ? undefined : normalized.key].find(
      (key): key is string => key !== undefined && archive.holdsUrl(key),
    );
    if (url === undefined) throw new NotCapturedError(`${asked} is not in the archive`);
    const [before, after] = [from, to].map((crawl) => {
      const found = archive.captureInCrawl(url, crawl);
      if (!found) throw new NotCapturedError(`${url} was not captured in crawl ${crawl}`);
      return found;
    }) as [Capture, Capture];
    const [a, b] = [captureText(before), captureText(after)];
    const label = (c: Capture) => `crawl ${c.crawl}, ${c.fetched_at}, status ${c.status}${c.revalidated ? ' (304 not modified)' : ''}`;
    if (a === b) return { url, from, to, same: true, bodiesDiffer: !before.body.equals(after.body), patch: '' };
    return { url, from, to, same: false, bodiesDiffer: true, patch: createTwoFilesPatch(url, url, a, b, label(before), label(after)) };
  });
}

type Capture = import('../storage/reader/index.js').CapturedContent;
type ArchiveFacts = import('../storage/reader/index.js').ArchiveFacts;
