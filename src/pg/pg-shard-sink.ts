import type pg from 'pg';
import type { CommitResult, DiscoveredUrl, PageOutcome, PageSinkPort } from '../pipeline/ports.js';
import { claimsOf, type PgWorker } from './pg-frontier.js';
import { storeCrawlDelay } from './pg-politeness.js';
import { pooledTransaction } from './pooled-transaction.js';

/** A deadlock PostgreSQL broke by aborting this transaction: nothing was written, so it is tried again. */
const DEADLOCK = '40P01';
const TRIES = 5;

/**
 * Commits pages into the worker's shard first, and into the frontier only
 * then. In one PostgreSQL transaction: the rows of the claims are locked (so
 * no one can take them meanwhile) and checked to be still this worker's;
 * the URLs their pages found are added and their final states set; then
 * the shard commits those pages, with their bodies and links; then the
 * frontier commits. A crash between the two commits leaves the page in the
 * shard and the URL leased: it is fetched again once its lease runs out,
 * never lost. A page whose lease was lost is stored nowhere.
 */
export class PgShardSink implements PageSinkPort {
  constructor(
    private readonly pool: pg.Pool,
    private readonly worker: PgWorker,
    private readonly shard: PageSinkPort,
    /** The Crawl-delay a robots.txt answer sets for the crawl's user agent, kept for every worker's claims. */
    private readonly crawlDelayMs?: (robotsUrl: string, answer: { status: number; body: Uint8Array }) => number | undefined,
  ) {}

  async commit(outcome: PageOutcome): Promise<CommitResult> {
    return (await this.commitAll([outcome]))[0]!;
  }

  async commitAll(outcomes: PageOutcome[]): Promise<CommitResult[]> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.commitOnce(outcomes);
      } catch (error) {
        if (attempt >= TRIES || (error as { code?: string }).code !== DEADLOCK) throw error;
      }
    }
  }

  private commitOnce(outcomes: PageOutcome[]): Promise<CommitResult[]> {
    return pooledTransaction(this.pool, async (client) => {
      await this.keepCrawlDelays(client, outcomes);
      const held = await this.lockHeld(client, outcomes);
      const mine = outcomes.filter((outcome) => held.has(outcome.claim.id));
      const added = await this.addFound(client, mine);
      for (const outcome of mine) await this.finish(client, outcome);
      const stored = mine.length ? await this.shard.commitAll(mine) : [];
      const results = new Map(mine.map((outcome, i) => [outcome, { ...stored[i]!, newUrls: added.get(outcome) ?? 0 }]));
      return outcomes.map((outcome) => results.get(outcome) ?? { newUrls: 0, leaseLost: true });
    });
  }

  /**
   * Before any URL row is locked: claims lock an origin's politeness row
   * first and URL rows after, so taking them in that order here too cannot deadlock.
   */
  private async keepCrawlDelays(client: pg.PoolClient, outcomes: PageOutcome[]): Promise<void> {
    if (!this.crawlDelayMs) return;
    const answers = outcomes.filter((outcome) => outcome.claim.kind === 'robots' && outcome.response && !outcome.response.revalidated);
    answers.sort((a, b) => (a.claim.origin < b.claim.origin ? -1 : a.claim.origin > b.claim.origin ? 1 : 0));
    for (const { claim, response } of answers) {
      if (response!.status >= 300 && response!.status <= 399) continue;
      await storeCrawlDelay(client, claim.origin, this.crawlDelayMs(claim.url, response!) ?? null);
    }
  }

  /** Locks the rows of the claims this worker still holds, in id order (as renewals do); returns their ids. */
  private async lockHeld(client: pg.PoolClient, outcomes: PageOutcome[]): Promise<Set<number>> {
    const { rows } = await client.query<{ id: string }>(
      `SELECT u.id FROM url u JOIN unnest($1::bigint[], $2::integer[]) AS held(id, claims) ON u.id = held.id AND u.claims = held.claims
       WHERE u.state = 'leased' AND u.lease_owner = $3 ORDER BY u.id FOR UPDATE OF u`,
      [outcomes.map((outcome) => outcome.claim.id), outcomes.map((outcome) => claimsOf(outcome.claim.lease)), this.worker.id],
    );
    return new Set(rows.map((row) => Number(row.id)));
  }

  /**
   * Adds what the pages found in one statement, in key order, so that two
   * commits adding the same URLs take them in the same order; returns how
   * many were new per page (a URL two pages found counts for the first).
   */
  private async addFound(client: pg.PoolClient, outcomes: PageOutcome[]): Promise<Map<PageOutcome, number>> {
    const firstFinder = new Map<string, PageOutcome>();
    const found: DiscoveredUrl[] = [];
    for (const outcome of outcomes) {
      for (const entry of outcome.discovered) {
        if (entry.known || entry.linkOnly || firstFinder.has(entry.key)) continue;
        firstFinder.set(entry.key, outcome);
        found.push(entry);
      }
    }
    const added = new Map<PageOutcome, number>();
    if (found.length === 0) return added;
    found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const { rows } = await client.query<{ url: string }>(
      `INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, error_code, error)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::integer[], $8::text[], $9::text[])
       ON CONFLICT (url) DO NOTHING
       RETURNING url`,
      [
        found.map((entry) => entry.key),
        found.map((entry) => (entry.url === entry.key ? null : entry.url)),
        found.map((entry) => entry.origin),
        found.map((entry) => entry.target),
        found.map((entry) => (entry.skip ? 'skipped' : 'queued')),
        found.map((entry) => entry.depth),
        found.map((entry) => entry.redirectHops),
        found.map((entry) => entry.skip?.code ?? null),
        found.map((entry) => entry.skip?.message ?? null),
      ],
    );
    for (const row of rows) {
      const finder = firstFinder.get(row.url)!;
      added.set(finder, (added.get(finder) ?? 0) + 1);
    }
    return added;
  }

  /** Sets the URL's final state (and keeps a robots.txt answer, for the other workers). */
  private async finish(client: pg.PoolClient, outcome: PageOutcome): Promise<void> {
    const { claim, response, error } = outcome;
    if (claim.kind === 'robots' && response && !response.revalidated) {
      await client.query(
        `INSERT INTO robots (url, status, body, location) VALUES ($1, $2, $3, $4)
         ON CONFLICT (url) DO UPDATE SET status = excluded.status, body = excluded.body, location = excluded.location`,
        [claim.key, response.status, Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength), response.location],
      );
    }
    await client.query(
      `UPDATE url SET state = $2, tries = $3, error_code = $4, error = $5, done_by = $6, lease_owner = NULL, lease_until = NULL WHERE id = $1`,
      [claim.id, outcome.state, outcome.tries, error?.code ?? null, error?.message ?? null, this.worker.id],
    );
  }
}
