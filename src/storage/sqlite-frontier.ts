import type { Database, Statement } from 'better-sqlite3';
import type { ClaimedUrl, FrontierPort } from './ports.js';

interface ClaimRow {
  id: number;
  url: string;
  depth: number;
  redirect_hops: number;
  tries: number;
}

/** The frontier is the url table: claiming flips queued rows to fetching. */
export class SqliteFrontier implements FrontierPort {
  private readonly claimStmt: Statement<[number], ClaimRow>;
  private readonly releaseStmt: Statement<[number]>;
  private readonly requeueStmt: Statement<[]>;
  private readonly addRootStmt: Statement<[string]>;

  constructor(db: Database) {
    this.claimStmt = db.prepare(`
      UPDATE url SET state = 'fetching'
      WHERE id IN (SELECT id FROM url INDEXED BY url_queued WHERE state = 'queued' ORDER BY id LIMIT ?)
      RETURNING id, url, depth, redirect_hops, tries`);
    this.releaseStmt = db.prepare("UPDATE url SET state = 'queued' WHERE id = ? AND state = 'fetching'");
    this.requeueStmt = db.prepare("UPDATE url SET state = 'queued' WHERE state = 'fetching'");
    this.addRootStmt = db.prepare(
      "INSERT INTO url (url, state, depth, redirect_hops) VALUES (?, 'queued', 0, 0) ON CONFLICT (url) DO NOTHING",
    );
  }

  claim(limit: number): ClaimedUrl[] {
    if (limit <= 0) return [];
    return this.claimStmt
      .all(limit)
      .sort((a, b) => a.id - b.id)
      .map((row) => ({ id: row.id, url: row.url, depth: row.depth, redirectHops: row.redirect_hops, tries: row.tries }));
  }

  release(id: number): void {
    this.releaseStmt.run(id);
  }

  /** URLs left `fetching` by a run that died were never committed: fetch them again. */
  requeueInFlight(): number {
    return this.requeueStmt.run().changes;
  }

  /** Queues roots not yet in the archive; returns how many were new. */
  addRoots(urls: string[]): number {
    return urls.reduce((added, url) => added + this.addRootStmt.run(url).changes, 0);
  }
}
