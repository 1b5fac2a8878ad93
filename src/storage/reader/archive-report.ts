import type { Database } from 'better-sqlite3';
import { linkKindSql } from '../archive/link-kind-codes.js';
import type { ArchiveReport, RootState } from './reader-types.js';

export type { ArchiveReport, RootState };

/**
 * The time the runs covered: the union of their [start, end] intervals. Runs side by side (the workers of a
 * merged crawl) are counted once, and the time between runs (a crawl stopped, resumed the next day) not at
 * all: what is left is the time spent crawling.
 */
function coveredMs(intervals: (readonly [number, number])[]): number {
  let total = 0;
  let reach = -Infinity;
  for (const [start, end] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (end <= reach) continue;
    total += end - Math.max(start, reach);
    reach = end;
  }
  return total;
}

const HTML = "(r.content_type LIKE 'text/html%' OR r.content_type LIKE 'application/xhtml+xml%')";

/** The end-of-run report, computed from the archive alone so `stats` can print it again. */
export function archiveReport(db: Database, runId?: number, now: Date = new Date()): ArchiveReport {
  const states = db.prepare<[], { state: string; n: number }>('SELECT state, count(*) AS n FROM url GROUP BY state').all();
  const count = (state: string) => states.find((row) => row.state === state)?.n ?? 0;
  const byStatus = db
    .prepare<[], { status: number; count: number }>('SELECT status, count(*) AS count FROM response GROUP BY status ORDER BY status')
    .all();
  const grouped = (state: string) =>
    db
      .prepare<[string, string], { code: string; count: number }>(
        'SELECT coalesce(error_code, ?) AS code, count(*) AS count FROM url WHERE state = ? GROUP BY 1 ORDER BY 2 DESC, 1',
      )
      .all(state === 'failed' ? 'error' : 'skipped', state);
  const bytes = db
    .prepare<[], { pages: number; html: number | null; other: number | null; dropped: number | null; capped: number | null }>(
      `SELECT count(*) AS pages, sum(CASE WHEN ${HTML} THEN b.size END) AS html, sum(CASE WHEN ${HTML} THEN NULL ELSE b.size END) AS other,
              sum(r.links_dropped) AS dropped, sum(r.links_dropped > 0) AS capped
       FROM response r JOIN body b ON b.id = r.body_id`,
    )
    .get()!;
  // An archive older than schema 15 has no render notes.
  const renderNotes = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'render_note'").get()
    ? db
        .prepare<[], { code: string; count: number }>(
          'SELECT note AS code, count(*) AS count FROM render_note GROUP BY note ORDER BY 2 DESC, 1',
        )
        .all()
    : [];
  const runs = db
    .prepare<
      [number | null, number | null],
      { id: number; started_at: string; ended_at: string | null; last: string | null; fetched: number; pages: number; imported: number }
    >(
      // CASE, not AND: json_type would fail on options that are not JSON (an archive someone else made).
      `SELECT run.id, run.started_at, run.ended_at, max(r.fetched_at) AS last, count(r.url_id) AS fetched,
              count(CASE WHEN u.kind = 'page' THEN 1 END) AS pages,
              CASE WHEN json_valid(run.options) THEN json_type(run.options, '$.import') IS NOT NULL ELSE 0 END AS imported
       FROM run LEFT JOIN response r ON r.run_id = run.id LEFT JOIN url u ON u.id = r.url_id
       WHERE ? IS NULL OR run.id = ? GROUP BY run.id`,
    )
    .all(runId ?? null, runId ?? null);
  const timeOf = (of: typeof runs) =>
    coveredMs(
      of.map((run) => {
        // A run killed without a chance to record its end lasted until its last page.
        const end = run.ended_at ?? (run.id === runId ? now.toISOString() : run.last) ?? run.started_at;
        return [Date.parse(run.started_at), Date.parse(end)] as const;
      }),
    );
  // An import stores responses it did not fetch: its time and counts are reported apart.
  const crawls = runs.filter((run) => run.imported !== 1);
  const imports = runs.filter((run) => run.imported === 1);
  return {
    urls: {
      done: count('done'),
      failed: count('failed'),
      skipped: count('skipped'),
      queued: count('queued'),
      fetching: count('fetching'),
      total: states.reduce((sum, row) => sum + row.n, 0),
    },
    byStatus,
    errors: grouped('failed'),
    skips: grouped('skipped'),
    pages: bytes.pages,
    htmlBytes: bytes.html ?? 0,
    otherBytes: bytes.other ?? 0,
    linksDropped: { links: bytes.dropped ?? 0, responses: bytes.capped ?? 0 },
    renderNotes,
    fetched: crawls.reduce((sum, run) => sum + run.fetched, 0),
    pagesFetched: crawls.reduce((sum, run) => sum + run.pages, 0),
    elapsedMs: timeOf(crawls),
    runs: crawls.length,
    imported: imports.reduce((sum, run) => sum + run.fetched, 0),
    pagesImported: imports.reduce((sum, run) => sum + run.pages, 0),
    importMs: timeOf(imports),
    importRuns: imports.length,
    shard: db.prepare("SELECT 1 FROM meta WHERE key = 'shardOf'").get() !== undefined,
  };
}

/** URLs by state, for the live progress line; an index count, cheap enough to run every second. */
export function urlStateCounts(db: Database): Record<'queued' | 'fetching' | 'done' | 'failed' | 'skipped', number> {
  const counts = { queued: 0, fetching: 0, done: 0, failed: 0, skipped: 0 };
  for (const row of db
    .prepare<[], { state: keyof typeof counts; n: number }>('SELECT state, count(*) AS n FROM url GROUP BY state')
    .all()) {
    counts[row.state] = row.n;
  }
  return counts;
}

/** Redirect chains are bounded by --max-redirects (at most 100); a cycle stops at the first URL seen again. */
const MAX_CHAIN = 101;

interface UrlRow {
  id: number;
  url: string;
  state: NonNullable<RootState['state']>;
  error: string | null;
  error_code: string | null;
  status: number | null;
}

/** How each root (by its archive key) ended, and where its redirects led, to tell a crawl that fetched a page from one that did not. */
export function rootStates(db: Database, roots: { url: string; key: string }[]): RootState[] {
  const lookup = db.prepare<[string], UrlRow>(
    'SELECT u.id, coalesce(u.fetch_url, u.url) AS url, u.state, u.error, u.error_code, r.status FROM url u LEFT JOIN response r ON r.url_id = u.id WHERE u.url = ?',
  );
  const target = db.prepare<[number], { to_url: string }>(
    `SELECT CASE l.to_id WHEN 0 THEN l.to_url ELSE t.url END AS to_url
     FROM link l LEFT JOIN url t ON t.id = l.to_id WHERE l.from_id = ? AND l.kind = ${linkKindSql('redirect')} LIMIT 1`,
  );
  const describe = (url: string, row: UrlRow): Omit<RootState, 'redirectedTo'> => {
    const error = row.error ?? row.error_code ?? undefined;
    return { url, state: row.state, ...(error ? { error } : {}), ...(row.status !== null ? { status: row.status } : {}) };
  };
  return roots.map(({ url, key }) => {
    const row = lookup.get(key);
    if (!row) return { url };
    let last = row;
    const seen = new Set([row.id]);
    while (last.status !== null && last.status >= 300 && last.status < 400 && seen.size < MAX_CHAIN) {
      const next = target.get(last.id);
      const nextRow = next && lookup.get(next.to_url);
      if (!nextRow || seen.has(nextRow.id)) break;
      seen.add(nextRow.id);
      last = nextRow;
    }
    return { ...describe(url, row), ...(last !== row ? { redirectedTo: describe(last.url, last) } : {}) };
  });
}
