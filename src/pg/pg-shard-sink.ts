import type pg from 'pg';
import { STORED_KIND } from '../pipeline/frontier-rules.js';
import type { CommitResult, PageOutcome, PageSinkPort, Reason } from '../pipeline/ports.js';
import { addFound, type FoundLimits } from './pg-add-found.js';
import { claimsOf, type PgWorker } from './pg-frontier.js';
import { storeCrawlDelay } from './pg-politeness.js';
import { pooledTransaction } from './pooled-transaction.js';

/** A deadlock PostgreSQL broke by aborting this transaction: nothing was written, so it is tried again. */
const DEADLOCK = '40P01';
const TRIES = 5;

/** The worker's shard, which can take back pages it committed when the frontier did not take them. */
export interface ShardSink extends PageSinkPort {
  takeBack(outcomes: readonly PageOutcome[]): void;
}

/** A lease counts only with the claim it was given for: a URL claimed again since is another's. */
type LeaseState = 'committed' | 'held' | 'lost';

/**
 * Commits pages into the worker's shard first, and into the frontier only
 * then. In one PostgreSQL transaction: the rows of the claims are locked (so
 * no one can take them meanwhile) and checked to be still this worker's;
 * the URLs their pages found are added and their final states set; then
 * the shard commits those pages, with their bodies and links; then the
 * frontier commits. A crash between the two commits leaves the page in the
 * shard and the URL leased: it is fetched again once its lease runs out,
 * never lost. A page whose lease was lost is stored nowhere.
 *
 * When the frontier's COMMIT fails after the shard's (the connection went),
 * whether it took is not known: those pages are held as in doubt until
 * `settle`, which the worker calls before it claims again. A page the
 * frontier marked done stays; one whose claim is still this worker's is
 * committed to the frontier again; one whose URL was claimed since (its lease
 * ran out during the outage, and another worker took it) is taken back out of
 * the shard, so a page lands in one shard only. What only the frontier can
 * judge (--max-per-path over all workers) the shard records as judged there.
 */
export class PgShardSink implements PageSinkPort {
  constructor(
    private readonly pool: pg.Pool,
    private readonly worker: PgWorker,
    private readonly shard: ShardSink,
    /** The crawl's stored limits that need the whole frontier to judge: the shard's own sink is given none of --max-per-path. */
    private readonly limits: FoundLimits,
    /** The Crawl-delay a robots.txt answer sets for the crawl's user agent, kept for every worker's claims. */
    private readonly crawlDelayMs?: (robotsUrl: string, answer: { status: number; body: Uint8Array }) => number | undefined,
  ) {}

  /** Pages in the shard whose frontier commit failed on the way: settled before the worker claims again. */
  private inDoubt: PageOutcome[] = [];

  /** How many pages are in doubt: stored in the shard, their commit to the frontier not known to have taken. */
  get unsettled(): number {
    return this.inDoubt.length;
  }

  async commit(outcome: PageOutcome): Promise<CommitResult> {
    return (await this.commitAll([outcome]))[0]!;
  }

  async commitAll(outcomes: PageOutcome[]): Promise<CommitResult[]> {
    for (let attempt = 1; ; attempt += 1) {
      const written: PageOutcome[] = [];
      try {
        return await this.commitOnce(outcomes, written);
      } catch (error) {
        // In the shard, not known in the frontier: never written again here, settled once the frontier answers.
        if (written.length > 0) {
          this.inDoubt.push(...written);
          throw error;
        }
        if (attempt >= TRIES || (error as { code?: string }).code !== DEADLOCK) throw error;
      }
    }
  }

  /** One transaction; the pages the shard committed are pushed onto `written` as it does. */
  private commitOnce(outcomes: PageOutcome[], written: PageOutcome[]): Promise<CommitResult[]> {
    return pooledTransaction(this.pool, async (client) => {
      const { mine, added, overCap } = await this.commitToFrontier(client, outcomes);
      const stored = mine.length ? await this.shard.commitAll(mine.map((outcome) => judged(outcome, overCap))) : [];
      written.push(...mine);
      const results = new Map(mine.map((outcome, i) => [outcome, { ...stored[i]!, newUrls: added.get(outcome) ?? 0 }]));
      return outcomes.map((outcome) => results.get(outcome) ?? { newUrls: 0, leaseLost: true });
    });
  }

  /** The frontier's part of a commit, in the caller's transaction: of the claims still held, their finds added and their states set. */
  private async commitToFrontier(client: pg.PoolClient, outcomes: PageOutcome[]) {
    await this.keepCrawlDelays(client, outcomes);
    const held = await this.lockHeld(client, outcomes);
    const mine = outcomes.filter((outcome) => held.has(outcome.claim.id));
    const { added, overCap } = await addFound(client, mine, this.limits);
    await this.finish(client, mine);
    return { mine, added, overCap };
  }

  /**
   * Settles the pages in doubt (see the class): asks the frontier what became of each claim; the
   * lost are taken back out of the shard, the held committed to the frontier again (in one
   * transaction; a claim lost meanwhile is taken back too). A connection lost again throws, and
   * what is still in doubt stays so.
   */
  async settle(): Promise<void> {
    if (this.inDoubt.length === 0) return;
    const outcomes = this.inDoubt;
    const states = await this.leaseStates(outcomes);
    const of = (state: LeaseState) => outcomes.filter((outcome) => states.get(outcome) === state);
    const lost = of('lost');
    if (lost.length > 0) this.shard.takeBack(lost);
    const held = of('held');
    this.inDoubt = held;
    if (held.length === 0) return;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const kept = await pooledTransaction(this.pool, async (client) => (await this.commitToFrontier(client, held)).mine);
        const lostSince = held.filter((outcome) => !kept.includes(outcome));
        if (lostSince.length > 0) this.shard.takeBack(lostSince);
        this.inDoubt = [];
        return;
      } catch (error) {
        if (attempt >= TRIES || (error as { code?: string }).code !== DEADLOCK) throw error;
      }
    }
  }

  /**
   * What became of each claim: committed (the frontier's COMMIT took), held (no one claimed the URL
   * since: leased in this worker's name, even run out, or given back), or lost (claimed again since;
   * claims only grow, so it stays lost).
   */
  private async leaseStates(outcomes: PageOutcome[]): Promise<Map<PageOutcome, LeaseState>> {
    const { rows } = await this.pool.query<{ id: string; claims: number; state: string }>(
      'SELECT id, claims, state FROM url WHERE id = ANY($1::bigint[])',
      [outcomes.map((outcome) => outcome.claim.id)],
    );
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    return new Map(
      outcomes.map((outcome) => {
        const row = byId.get(outcome.claim.id);
        const state: LeaseState =
          !row || row.claims !== claimsOf(outcome.claim.lease)
            ? 'lost'
            : row.state === 'leased' || row.state === 'queued'
              ? 'held'
              : 'committed';
        return [outcome, state];
      }),
    );
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

  /**
   * Locks the rows of the claims this worker still holds, in id order (as renewals do); returns their ids.
   * A claim given back (released) still holds its URL while no other claim has taken it: its commit is
   * stored rather than its fetch thrown away (a worker that lost its connection gives back all it leases
   * while a commit of the round before may still be on its way).
   */
  private async lockHeld(client: pg.PoolClient, outcomes: PageOutcome[]): Promise<Set<number>> {
    const { rows } = await client.query<{ id: string }>({
      name: 'crawlite-lock-held',
      text: `SELECT u.id FROM url u JOIN unnest($1::bigint[], $2::integer[]) AS held(id, claims) ON u.id = held.id AND u.claims = held.claims
             WHERE (u.state = 'leased' AND u.lease_owner = $3) OR (u.state = 'queued' AND u.lease_owner IS NULL) ORDER BY u.id FOR UPDATE OF u`,
      values: [outcomes.map((outcome) => outcome.claim.id), outcomes.map((outcome) => claimsOf(outcome.claim.lease)), this.worker.id],
    });
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** Sets the URLs' final states in one statement (and keeps a robots.txt answer, for the other workers). */
  private async finish(client: pg.PoolClient, outcomes: PageOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    for (const { claim, response } of outcomes) {
      if (claim.kind !== STORED_KIND || !response || response.revalidated) continue;
      await client.query(
        `INSERT INTO robots (url, status, body, location) VALUES ($1, $2, $3, $4)
         ON CONFLICT (url) DO UPDATE SET status = excluded.status, body = excluded.body, location = excluded.location`,
        [
          claim.key,
          response.status,
          Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength),
          response.location,
        ],
      );
    }
    await client.query({
      name: 'crawlite-finish',
      text: `UPDATE url u SET state = f.state, tries = f.tries, error_code = f.code, error = f.message, done_by = $6, lease_owner = NULL, lease_until = NULL
             FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[], $5::text[]) AS f(id, state, tries, code, message)
             WHERE u.id = f.id`,
      values: [
        outcomes.map((outcome) => outcome.claim.id),
        outcomes.map((outcome) => outcome.state),
        outcomes.map((outcome) => outcome.tries),
        outcomes.map((outcome) => outcome.error?.code ?? null),
        outcomes.map((outcome) => outcome.error?.message ?? null),
        this.worker.id,
      ],
    });
  }
}

/** The outcome with the links the frontier left out past --max-per-path marked so, for the shard. */
function judged(outcome: PageOutcome, overCap: Map<string, Reason>): PageOutcome {
  if (overCap.size === 0) return outcome;
  let marked: PageOutcome['discovered'] | undefined;
  outcome.discovered.forEach((found, i) => {
    const skip = found.skip || found.linkOnly ? undefined : overCap.get(found.key);
    if (skip) (marked ??= outcome.discovered.slice())[i] = { ...found, skip };
  });
  return marked ? { ...outcome, discovered: marked } : outcome;
}
