import { createHash } from 'node:crypto';
import type { Database as Db, Statement } from 'better-sqlite3';
import { payloadDigest } from '../writer/payload-digest.js';
import { bodyBytes } from '../archive/body-bytes.js';
import { openShardFile } from '../archive/shard-file.js';

/** SQLite's own limit on a blob (SQLITE_MAX_LENGTH), and so crawlite's on a stored body (--max-body at most). */
export const MAX_BODY_BYTES = 1_000_000_000;

interface BodyRow {
  id: number;
  hash: unknown;
  size: unknown;
  type: string;
  length: number;
  sha1: unknown;
  data: unknown;
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
  private readonly rows: Statement<[number], BodyRow>;
  private readonly user: Statement<[number, number], { url: string }>;
  private lastId = 0;
  private checked = 0;
  readonly total: number;

  /** Opens the shard at `path` (see openShardFile) to check it; close() closes it. */
  static open(path: string): ShardBodyCheck {
    const db = openShardFile(path);
    try {
      return new ShardBodyCheck(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  constructor(private readonly db: Db) {
    // One read of each row: sha1 is stored after the data, so reading it walks the blob's pages anyway.
    // SQLite refuses a value over its limit (1e9 bytes), and a blob is never larger than the file holding it.
    this.rows = db.prepare(
      `SELECT id, hash, size, typeof(data) AS type, length(data) AS length, sha1, data FROM body WHERE id > ? ORDER BY id`,
    );
    this.user = db.prepare(
      `SELECT u.url FROM url u WHERE u.id IN (SELECT url_id FROM response WHERE body_id = ? UNION ALL SELECT url_id FROM capture WHERE body_id = ?) LIMIT 1`,
    );
    this.total = (db.prepare('SELECT count(*) AS n FROM body').get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }

  /** Checks bodies until `budgetMs` has passed (at least one), the last body, or a bad one. */
  step(budgetMs: number): BodyCheckStep {
    const until = Date.now() + budgetMs;
    let bad: { id: number; problem: string } | undefined;
    let done = true;
    for (const row of this.rows.iterate(this.lastId)) {
      this.lastId = row.id;
      const problem = this.problemOf(row);
      if (problem) {
        bad = { id: row.id, problem };
        break;
      }
      this.checked += 1;
      // Leaving the loop resets the statement; the next step seeks past lastId.
      if (Date.now() >= until) {
        done = false;
        break;
      }
    }
    // Asked once the iteration is over: the connection runs one statement at a time.
    if (bad) return { checked: this.checked, done: true, problem: `body row ${bad.id}${this.usedBy(bad.id)} ${bad.problem}` };
    return { checked: this.checked, done };
  }

  private problemOf(head: BodyRow): string | undefined {
    if (head.type !== 'blob') return `holds ${head.type} where a body's bytes belong`;
    if (!(head.hash instanceof Buffer) || head.hash.length !== 32) return 'has a hash that is no SHA-256';
    // A compact shard's data is shorter than its size (a zlib stream); never longer.
    if (typeof head.size !== 'number' || head.size < head.length)
      return `says it holds ${String(head.size)} bytes but holds ${head.length}`;
    if (head.size > MAX_BODY_BYTES) return `holds ${head.size} bytes, more than a body can (${MAX_BODY_BYTES})`;
    let data: Buffer;
    try {
      data = bodyBytes(head.data as Buffer, head.size);
    } catch {
      return `says it holds ${head.size} bytes but holds ${head.length}, which are no zlib stream of that many`;
    }
    const sha256 = createHash('sha256').update(data).digest();
    if (!sha256.equals(head.hash))
      return `does not hold what its hash says: its data's SHA-256 is ${sha256.toString('hex')}, the row says ${head.hash.toString('hex')}`;
    if (head.sha1 !== null && head.sha1 !== payloadDigest(data))
      return `has a SHA-1 (${String(head.sha1)}) that is not its data's (${payloadDigest(data)})`;
    return undefined;
  }

  private usedBy(id: number): string {
    const row = this.user.get(id, id);
    return row ? ` (${row.url})` : '';
  }
}
