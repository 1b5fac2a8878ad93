import { createHash } from 'node:crypto';
import type { Database as Db, Statement } from 'better-sqlite3';
import { payloadDigest } from './payload-digest.js';

/** SQLite's own limit on a blob (SQLITE_MAX_LENGTH), and so crawlite's on a stored body (--max-body at most). */
export const MAX_BODY_BYTES = 1_000_000_000;

interface BodyHead {
  id: number;
  hash: unknown;
  size: unknown;
  type: string;
  length: number;
  sha1: unknown;
}

export interface BodyCheckStep {
  /** Bodies checked so far. */
  checked: number;
  done: boolean;
  /** What is wrong with the first bad body: its row, and a URL that uses it. */
  problem?: string;
}

/**
 * Checks a shard's bodies one by one, as a merge would copy them: the stored size is the blob's length
 * (read without loading the blob), at most MAX_BODY_BYTES, and the SHA-256 (and the SHA-1 of the WARC
 * payload digest, where stored) is that of the data. A merge stores a body once by hash, so a body that
 * lied about its hash would stand for another page's. Works in steps, so a caller can stop between them.
 */
export class ShardBodyCheck {
  private readonly head: Statement<[number], BodyHead>;
  private readonly data: Statement<[number], { data: Buffer }>;
  private readonly user: Statement<[number, number], { url: string }>;
  private lastId = 0;
  private checked = 0;
  readonly total: number;

  constructor(db: Db) {
    this.head = db.prepare(
      `SELECT id, hash, size, typeof(data) AS type, length(data) AS length, sha1 FROM body WHERE id > ? ORDER BY id LIMIT 1`,
    );
    this.data = db.prepare('SELECT data FROM body WHERE id = ?');
    this.user = db.prepare(
      `SELECT u.url FROM url u WHERE u.id IN (SELECT url_id FROM response WHERE body_id = ? UNION ALL SELECT url_id FROM capture WHERE body_id = ?) LIMIT 1`,
    );
    this.total = (db.prepare('SELECT count(*) AS n FROM body').get() as { n: number }).n;
  }

  /** Checks bodies until `budgetMs` has passed (at least one), the last body, or a bad one. */
  step(budgetMs: number): BodyCheckStep {
    const until = Date.now() + budgetMs;
    do {
      const head = this.head.get(this.lastId);
      if (!head) return { checked: this.checked, done: true };
      this.lastId = head.id;
      const problem = this.problemOf(head);
      if (problem) return { checked: this.checked, done: true, problem: `body row ${head.id}${this.usedBy(head.id)} ${problem}` };
      this.checked += 1;
    } while (Date.now() < until);
    return { checked: this.checked, done: false };
  }

  private problemOf(head: BodyHead): string | undefined {
    if (head.type !== 'blob') return `holds ${head.type} where a body's bytes belong`;
    if (!(head.hash instanceof Buffer) || head.hash.length !== 32) return 'has a hash that is no SHA-256';
    if (typeof head.size !== 'number' || head.size !== head.length) return `says it holds ${String(head.size)} bytes but holds ${head.length}`;
    if (head.length > MAX_BODY_BYTES) return `holds ${head.length} bytes, more than a body can (${MAX_BODY_BYTES})`;
    const { data } = this.data.get(head.id)!;
    const sha256 = createHash('sha256').update(data).digest();
    if (!sha256.equals(head.hash)) return `does not hold what its hash says: its data's SHA-256 is ${sha256.toString('hex')}, the row says ${head.hash.toString('hex')}`;
    if (head.sha1 !== null && head.sha1 !== payloadDigest(data)) return `has a SHA-1 (${String(head.sha1)}) that is not its data's (${payloadDigest(data)})`;
    return undefined;
  }

  private usedBy(id: number): string {
    const row = this.user.get(id, id);
    return row ? ` (${row.url})` : '';
  }
}
