import type { Database, Transaction } from 'better-sqlite3';
import type { ClaimedUrl, CommitResult, PageOutcome, PageSinkPort } from '../../pipeline/ports.js';
import { asWriteError } from '../archive/archive-errors.js';
import type { SqlitePageSink } from './sqlite-page-sink.js';
import { TakeBackPages } from './take-back-pages.js';
import { UrlRows } from '../writer/url-rows.js';

/**
 * A worker's shard: an archive like any other, written by the SQLite page
 * sink. Claims come from a shared frontier whose ids mean nothing here, so
 * each claimed URL gets (or finds) its row in the shard's url table first,
 * and the page is committed under that row's id.
 */
export class ShardPageSink implements PageSinkPort {
  private readonly rowsFor: Transaction<(claims: ClaimedUrl[]) => number[]>;
  private readonly takingBack: TakeBackPages;

  constructor(
    db: Database,
    private readonly path: string,
    private readonly pages: SqlitePageSink,
  ) {
    const urls = new UrlRows(db);
    this.rowsFor = db.transaction((claims: ClaimedUrl[]) => claims.map((claim) => urls.claimedInShard(claim)));
    this.takingBack = new TakeBackPages(db, urls);
  }

  async commit(outcome: PageOutcome): Promise<CommitResult> {
    return (await this.commitAll([outcome]))[0]!;
  }

  async commitAll(outcomes: PageOutcome[]): Promise<CommitResult[]> {
    let ids: number[];
    try {
      ids = this.rowsFor.immediate(outcomes.map((outcome) => outcome.claim));
    } catch (error) {
      throw asWriteError(this.path, error);
    }
    return this.pages.commitAll(outcomes.map((outcome, i) => ({ ...outcome, claim: { ...outcome.claim, id: ids[i]! } })));
  }

  /** Takes committed pages back out of the shard: the frontier never marked them done, and the worker lost their leases since. */
  takeBack(outcomes: readonly PageOutcome[]): void {
    try {
      this.takingBack.takeBack(outcomes);
    } catch (error) {
      throw asWriteError(this.path, error);
    }
  }
}
