import type { Database, Statement } from 'better-sqlite3';
import {
  finishedBeforeSql,
  ownClaimTakesSql,
  requeueRefusedSql,
  revisionSql,
  stateRankSql,
  upgradableSql,
} from '../../pipeline/frontier-rules.js';
import type { UrlKind } from '../../pipeline/ports.js';

/** A found URL known already is revised by the frontier's rules: the upsert's row is the find. */
const REVISION = revisionSql({
  dialect: 'sqlite',
  row: 'url.',
  depth: 'excluded.depth',
  queueable: "excluded.state = 'queued'",
  crawl: 'excluded.crawl',
  maxDepth: '@maxDepth',
});

/** A URL a crawl's page pointed at, as `found` and `foundNew` bind it. */
export interface FoundUrlRow {
  url: string;
  fetchUrl: string | null;
  origin: string;
  kind: UrlKind;
  state: 'queued' | 'skipped';
  depth: number;
  redirectHops: number;
  code: string | null;
  message: string | null;
  from: number;
  pathKey: string | null;
  maxDepth: number | null;
  crawl: number;
}

/** A resource a page fetched as it rendered, as `exchangeFetched` and `exchangeOtherMethod` bind it. */
export interface ExchangeUrlRow {
  url: string;
  fetchUrl: string | null;
  origin: string;
  state: 'done' | 'skipped';
  depth: number;
  code: string | null;
  message: string | null;
  from: number;
  crawl: number;
}

/** An imported record's URL, as `importedPage` and `importedOtherMethod` bind it. */
export interface ImportedUrlRow {
  url: string;
  fetchUrl: string | null;
  origin: string;
  kind: UrlKind;
  depth: number;
  redirectHops: number;
  code: string | null;
  message: string | null;
  pathKey: string | null;
}

/** A URL the frontier hands out or queues, by its key and first spelling. */
export interface FrontierUrl {
  key: string;
  url: string;
  origin: string;
  kind: UrlKind;
}

/** A claimed URL's row, with the validators of its stored response when a later crawl queued it. */
export interface ClaimRow {
  id: number;
  url: string;
  fetch_url: string | null;
  origin: string;
  kind: UrlKind;
  depth: number;
  redirect_hops: number;
  tries: number;
  etag: string | null;
  last_modified: string | null;
}

/**
 * A URL queued again in a later crawl than its stored response's asks for that response's validators;
 * within one crawl (a retry, a page found closer) a URL is fetched unconditionally.
 */
const validator = (name: string) => `(SELECT json_extract(r.headers, '$."${name}"') FROM response r JOIN run rn ON rn.id = r.run_id
   WHERE r.url_id = url.id AND rn.crawl < url.crawl)`;
const RETURNING = `RETURNING id, url, fetch_url, origin, kind, depth, redirect_hops, tries,
  ${validator('etag')} AS etag, ${validator('last-modified')} AS last_modified`;

/**
 * The one door through which the SQLite archive's `url` rows are written: a method per kind of write
 * (a URL found, claimed, finished, queued again, imported, merged), whoever writes it. Statements are
 * prepared once each, on first use (a frontier, a page sink and an import each use a few of them);
 * every one runs in the caller's transaction. `crawl` is the crawl number of the run that writes
 * (roots and own claims are marked with it).
 */
export class UrlRows {
  private readonly prepared = new Map<string, Statement<unknown[], unknown>>();
  private readonly crawl: number;

  constructor(
    private readonly db: Database,
    crawl = 1,
  ) {
    this.crawl = Math.trunc(crawl);
  }

  private statement<R = unknown>(name: string, sql: () => string): Statement<unknown[], R> {
    let statement = this.prepared.get(name);
    if (!statement) {
      statement = this.db.prepare(sql());
      this.prepared.set(name, statement);
    }
    return statement as Statement<unknown[], R>;
  }

  // A crawl's pages and what they found (src/pipeline/frontier-rules.ts decides what a find revises).

  private static readonly FOUND_INSERT = `
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, error_code, error, found_from, path_key, crawl)
      VALUES (@url, @fetchUrl, @origin, @kind, @state, @depth, @redirectHops, @code, @message, @from, @pathKey, @crawl)`;

  /** A URL found on a page: inserted, or revised by the frontier's rules when known; 1 when it gave the crawl more to do. */
  found(row: FoundUrlRow): number {
    return this.statement(
      'found',
      () => `${UrlRows.FOUND_INSERT}
      ON CONFLICT (url) DO UPDATE SET
        ${REVISION.assignments}
      WHERE ${REVISION.changes}`,
    ).run(row).changes;
  }

  /** A URL found on a page, inserted only if new (a URL with a query: only a new one counts as a variant of its path). */
  foundNew(row: FoundUrlRow): number {
    return this.statement('foundNew', () => `${UrlRows.FOUND_INSERT} ON CONFLICT (url) DO NOTHING`).run(row).changes;
  }

  /** A claimed URL's outcome: its state, tries and error. */
  finished(id: number, state: string, tries: number, error: { code: string; message: string } | undefined): void {
    this.statement('finished', () => 'UPDATE url SET state = ?, tries = ?, error_code = ?, error = ? WHERE id = ?').run(
      state,
      tries,
      error?.code ?? null,
      error?.message ?? null,
      id,
    );
  }

  private static readonly EXCHANGE_INSERT = `INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, error_code, error, found_from, crawl)
      VALUES (@url, @fetchUrl, @origin, 'requisite', @state, @depth, 0, @code, @message, @from, @crawl)`;

  /**
   * A resource a page fetched (a GET) as it rendered: its id. A URL queued, skipped or failed is done now; one
   * held by a fetch in flight keeps its state (that fetch commits it).
   */
  exchangeFetched(row: ExchangeUrlRow): number {
    return this.statement<{ id: number }>(
      'exchangeFetched',
      () => `${UrlRows.EXCHANGE_INSERT}
      ON CONFLICT (url) DO UPDATE SET state = iif(url.state = 'fetching', url.state, 'done'),
        error_code = iif(url.state = 'fetching', url.error_code, NULL), error = iif(url.state = 'fetching', url.error, NULL),
        depth = min(url.depth, excluded.depth), crawl = max(url.crawl, excluded.crawl)
      RETURNING id`,
    ).get(row)!.id;
  }

  /** A URL a rendering page sent a request other than GET to: its id, its row left as it was if known. */
  exchangeOtherMethod(row: ExchangeUrlRow): number {
    return this.statement<{ id: number }>(
      'exchangeOtherMethod',
      () => `${UrlRows.EXCHANGE_INSERT} ON CONFLICT (url) DO UPDATE SET url = url.url RETURNING id`,
    ).get(row)!.id;
  }

  // The frontier: claims flip queued rows to fetching, one origin at a time.

  /** Claims up to `limit` queued URLs of an origin (only its requisites, if asked): their rows. */
  claim(origin: string, limit: number, only: 'requisite' | undefined): ClaimRow[] {
    const requisites = only === 'requisite';
    return this.statement<ClaimRow>(requisites ? 'claimRequisites' : 'claim', () =>
      requisites
        ? `
      UPDATE url SET state = 'fetching'
      WHERE id IN (SELECT id FROM url INDEXED BY url_queued_origin WHERE state = 'queued' AND origin = ? AND kind = 'requisite' ORDER BY id LIMIT ?)
      ${RETURNING}`
        : `
      UPDATE url SET state = 'fetching'
      WHERE id IN (SELECT id FROM url INDEXED BY url_queued_origin WHERE state = 'queued' AND origin = ? ORDER BY id LIMIT ?)
      ${RETURNING}`,
    ).all(origin, limit);
  }

  /** A claim given back unfetched: queued again. */
  released(id: number): void {
    this.statement('released', () => "UPDATE url SET state = 'queued' WHERE id = ? AND state = 'fetching'").run(id);
  }

  /** URLs left `fetching` by a run that died were never committed: queued again; returns how many. */
  requeueInFlight(): number {
    return this.statement('requeueInFlight', () => "UPDATE url SET state = 'queued' WHERE state = 'fetching'").run().changes;
  }

  /** A root queued (at depth 0), unless the archive has it in a state a root does not take over; 1 when queued. */
  root(root: FrontierUrl): number {
    return this.statement(
      'root',
      () => `
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, crawl) VALUES (?, ?, ?, ?, 'queued', 0, 0, ${this.crawl})
      ON CONFLICT (url) DO UPDATE SET state = 'queued', depth = 0, error_code = NULL, error = NULL
        WHERE ${upgradableSql({ row: 'url.', queueable: 'TRUE' })}`,
    ).run(root.key, root.url === root.key ? null : root.url, root.origin, root.kind).changes;
  }

  /** A URL the crawl claims for itself (a redirect's target, fetched at once): its row, if it may. */
  claimOwn(url: FrontierUrl & { depth: number; redirectHops: number }, takeOver: boolean): ClaimRow | undefined {
    return this.statement<ClaimRow>(
      'claimOwn',
      () => `
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, crawl) VALUES (?, ?, ?, ?, 'fetching', ?, ?, ${this.crawl})
      ON CONFLICT (url) DO UPDATE SET state = 'fetching', kind = excluded.kind
        WHERE url.state NOT IN ('done', 'fetching') AND ${ownClaimTakesSql('url.', '?')}
      ${RETURNING}`,
    ).get(url.key, url.url === url.key ? null : url.url, url.origin, url.kind, url.depth, url.redirectHops, takeOver ? 1 : 0);
  }

  /** URLs refused for want of a robots.txt queued again (of one origin, or all); returns how many. */
  requeueRobotsRefused(origin?: string): number {
    if (origin !== undefined) return this.statement('requeueRefusedAt', () => requeueRefusedSql('?')).run(origin).changes;
    return this.statement('requeueRefused', () => requeueRefusedSql()).run().changes;
  }

  /** A URL a worker claimed from a shared frontier, in its shard: its row there (made or found), fetching. */
  claimedInShard(url: FrontierUrl & { depth: number; redirectHops: number }): number {
    return this.statement<{ id: number }>(
      'claimedInShard',
      () => `
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops) VALUES (?, ?, ?, ?, 'fetching', ?, ?)
      ON CONFLICT (url) DO UPDATE SET state = 'fetching', kind = excluded.kind, depth = min(url.depth, excluded.depth)
      RETURNING id`,
    ).get(url.key, url.url === url.key ? null : url.url, url.origin, url.kind, url.depth, url.redirectHops)!.id;
  }

  /** A page taken back out of a shard: queued again, with fresh tries, unless a response of it stays. */
  requeueUnstored(id: number): void {
    this.statement(
      'requeueUnstored',
      () => `UPDATE url SET state = 'queued', tries = 0, error_code = NULL, error = NULL
                               WHERE id = ? AND NOT EXISTS (SELECT 1 FROM response r WHERE r.url_id = url.id)`,
    ).run(id);
  }

  // Whole-archive changes of state.

  /** Every failed URL queued again with fresh tries (`crawlite retry`); returns how many. */
  requeueFailed(): number {
    return this.statement(
      'requeueFailed',
      () => "UPDATE url SET state = 'queued', tries = 0, error_code = NULL, error = NULL WHERE state = 'failed'",
    ).run().changes;
  }

  /**
   * The URLs an earlier crawl finished queued again for crawl `crawl`, with fresh tries: all of them, or the
   * robots.txt URLs and those keyed in `only`. Returns how many.
   */
  requeueFinished(crawl: number, only?: readonly string[]): number {
    const set = `UPDATE url SET state = 'queued', tries = 0, error_code = NULL, error = NULL, crawl = ${Math.trunc(crawl)}`;
    const finished = finishedBeforeSql('', String(Math.trunc(crawl)));
    if (!only) return this.db.prepare(`${set} WHERE ${finished}`).run().changes;
    const robots = this.db.prepare(`${set} WHERE kind = 'robots' AND ${finished}`).run().changes;
    const one = this.db.prepare<[string]>(`${set} WHERE url = ? AND ${finished}`);
    return only.reduce((queued, key) => queued + one.run(key).changes, robots);
  }

  // An import's URLs.

  private static readonly IMPORTED_INSERT = `
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, tries, error_code, error, path_key)`;

  /** An imported record's URL, `done` or `failed`: its id (a known URL takes the state, tries at least 1). */
  importedPage(row: ImportedUrlRow & { state: 'done' | 'failed' }): number {
    return this.statement<{ id: number }>(
      'importedPage',
      () => `${UrlRows.IMPORTED_INSERT}
      VALUES (@url, @fetchUrl, @origin, @kind, @state, @depth, @redirectHops, 1, @code, @message, @pathKey)
      ON CONFLICT (url) DO UPDATE SET state = excluded.state, tries = max(url.tries, 1),
        error_code = excluded.error_code, error = excluded.error
      RETURNING id`,
    ).get(row)!.id;
  }

  /** An imported record's URL that only a request other than GET answered: `skipped`, if new. */
  importedOtherMethod(row: ImportedUrlRow): void {
    this.statement(
      'importedOtherMethod',
      () => `${UrlRows.IMPORTED_INSERT}
      VALUES (@url, @fetchUrl, @origin, @kind, 'skipped', @depth, @redirectHops, 1, @code, @message, @pathKey)
      ON CONFLICT (url) DO NOTHING`,
    ).run(row);
  }

  /** A URL an imported page links to, `skipped` until a record answers it; 1 when new. */
  importedFound(row: ImportedUrlRow & { from: number }): number {
    return this.statement(
      'importedFound',
      () => `
      INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, error_code, error, found_from, path_key)
      VALUES (@url, @fetchUrl, @origin, @kind, 'skipped', @depth, @redirectHops, @code, @message, @from, @pathKey)
      ON CONFLICT (url) DO NOTHING`,
    ).run(row).changes;
  }

  /** A URL found again closer to the first page: the shorter distance is its depth, as in a crawl. */
  closer(url: string, depth: number): void {
    this.statement('closer', () => 'UPDATE url SET depth = @depth WHERE url = @url AND depth > @depth').run({ depth, url });
  }

  /** The imported URLs the link walk reached (temp.reach, temp.imported) take its kinds and depths; returns how many changed. */
  reachedDepths(): number {
    return this.db
      .prepare(
        `UPDATE url SET depth = r.depth, kind = r.kind
      FROM temp.reach r JOIN temp.imported i ON i.id = r.id
      WHERE url.id = r.id AND url.kind IN ('page', 'requisite') AND (url.depth <> r.depth OR url.kind <> r.kind)`,
      )
      .run().changes;
  }

  /** The requisites a WACZ's page lists (temp.import_listed_page) name, of the responses of run `runId`, are pages. */
  listedArePages(runId: number): void {
    this.db
      .prepare(
        `UPDATE url SET kind = 'page' WHERE kind = 'requisite'
             AND url IN (SELECT url FROM temp.import_listed_page)
             AND id IN (SELECT url_id FROM response WHERE run_id = ?)`,
      )
      .run(runId);
  }

  // A merge: the attached shard's URLs into the output (main), keyed by their text.

  /**
   * The shard's URLs with ids lo..hi: one row per URL text; the better state wins (its tries and error with it),
   * the least depth. Prepared on first use, after the shard is attached.
   */
  mergeShard(lo: number, hi: number): void {
    const rank = stateRankSql;
    this.statement(
      'mergeShard',
      () => `INSERT INTO main.url (url, state, depth, redirect_hops, tries, error_code, error, kind, origin, fetch_url, path_key, crawl)
   SELECT url, CASE state WHEN 'fetching' THEN 'queued' ELSE state END, depth, redirect_hops, tries, error_code, error,
          kind, origin, fetch_url, path_key, crawl
   FROM shard.url WHERE id BETWEEN :lo AND :hi ORDER BY id
   ON CONFLICT (url) DO UPDATE SET
     state = CASE WHEN ${rank('excluded.state')} < ${rank('state')} THEN excluded.state ELSE state END,
     tries = CASE WHEN ${rank('excluded.state')} < ${rank('state')} THEN excluded.tries ELSE tries END,
     error_code = CASE WHEN ${rank('excluded.state')} < ${rank('state')} THEN excluded.error_code ELSE error_code END,
     error = CASE WHEN ${rank('excluded.state')} < ${rank('state')} THEN excluded.error ELSE error END,
     depth = min(depth, excluded.depth),
     crawl = max(crawl, excluded.crawl)`,
    ).run({ lo, hi });
  }

  /** Where the merged URLs (temp.merge_url) were found from, when that page is already in the output. */
  shardFoundFrom(): void {
    this.statement(
      'shardFoundFrom',
      () => `UPDATE main.url SET found_from = (
     SELECT fo.id FROM temp.merge_url m
     JOIN shard.url su ON su.id = m.shard_id
     JOIN shard.url sf ON sf.id = su.found_from
     JOIN main.url fo ON fo.url = sf.url
     WHERE m.out_id = main.url.id)
   WHERE found_from IS NULL AND id IN (SELECT out_id FROM temp.merge_url)`,
    ).run();
  }
}
