import type pg from 'pg';
import type { CommitResult, PageOutcome, PageSinkPort } from '../pipeline/ports.js';
import { claimsOf, type PgWorker } from './pg-frontier.js';

/**
 * Commits a page into the worker's shard first, then tells the frontier:
 * the rows of the claims are locked (so no one can take them meanwhile) and
 * checked to be still this worker's; the shard commits the pages whose
 * leases hold, with their bodies and links; then, in the same PostgreSQL
 * transaction, their discovered URLs are added and their final states set.
 * A crash between the two commits leaves the page in the shard and the URL
 * leased: it is fetched again once its lease runs out, never lost. A page
 * whose lease was lost is stored nowhere.
 */
export class PgShardSink implements PageSinkPort {
  constructor(
    private readonly pool: pg.Pool,
    private readonly worker: PgWorker,
    private readonly shard: PageSinkPort,
  ) {}

  async commit(outcome: PageOutcome): Promise<CommitResult> {
    return (await this.commitAll([outcome]))[0]!;
  }

  async commitAll(outcomes: PageOutcome[]): Promise<CommitResult[]> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      try {
        const held = await this.lockHeld(client, outcomes);
        const mine = outcomes.filter((outcome) => held.has(outcome.claim.id));
        const stored = mine.length ? await this.shard.commitAll(mine) : [];
        const results = new Map<PageOutcome, CommitResult>();
        for (const [i, outcome] of mine.entries()) {
          const newUrls = await this.finish(client, outcome);
          results.set(outcome, { ...stored[i]!, newUrls });
        }
        await client.query('COMMIT');
        return outcomes.map((outcome) => results.get(outcome) ?? { newUrls: 0, leaseLost: true });
      } catch (error) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw error;
      }
    } finally {
      client.release(broken);
    }
  }

  /** Locks the rows of the claims this worker still holds; returns their ids. */
  private async lockHeld(client: pg.PoolClient, outcomes: PageOutcome[]): Promise<Set<number>> {
    const { rows } = await client.query<{ id: string }>(
      `SELECT u.id FROM url u JOIN unnest($1::bigint[], $2::integer[]) AS held(id, claims) ON u.id = held.id AND u.claims = held.claims
       WHERE u.state = 'leased' AND u.lease_owner = $3 ORDER BY u.id FOR UPDATE OF u`,
      [outcomes.map((outcome) => outcome.claim.id), outcomes.map((outcome) => claimsOf(outcome.claim.lease)), this.worker.id],
    );
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** Adds what the page found (one statement) and sets its final state; returns how many URLs were new. */
  private async finish(client: pg.PoolClient, outcome: PageOutcome): Promise<number> {
    const found = outcome.discovered.filter((entry) => !entry.known && !entry.linkOnly);
    let newUrls = 0;
    if (found.length > 0) {
      const inserted = await client.query(
        `INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, error_code, error)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::integer[], $8::text[], $9::text[])
         ON CONFLICT (url) DO NOTHING`,
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
      newUrls = inserted.rowCount ?? 0;
    }
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
    return newUrls;
  }
}
