import type { Database, Statement } from 'better-sqlite3';
import { base32 } from './payload-digest.js';

/** Where a payload is stored: the URL whose capture holds it, and its body. */
export interface StoredPayload {
  urlId: number;
  bodyId: number;
}

/** What a revisit record says of its original, as far as the archive can be asked: its URL (as a key), payload digest and time. */
export interface ArchivedOriginal {
  key?: string | undefined;
  digest?: string | undefined;
  /** WARC-Refers-To-Date, as the archive stores times. */
  date?: string | undefined;
}

/** A WARC payload digest as the archive spells it ('sha1:' and base32); a hex SHA-1, as some writers give it, is converted. */
export function archiveDigest(digest: string): string | undefined {
  const match = /^sha1:([A-Za-z2-7]{32}|[0-9a-fA-F]{40})$/i.exec(digest.trim());
  if (!match) return undefined;
  const value = match[1]!;
  return `sha1:${value.length === 40 ? base32(Buffer.from(value, 'hex')) : value.toUpperCase()}`;
}

/**
 * The payload of a revisit's original among the captures already in the archive (from an earlier import
 * or a crawl): a capture of the URL the revisit names whose body has its payload digest, or else was
 * fetched at the time it names. Only the one URL's captures are read (by index); without a digest or a
 * date, which of them is meant is unknown, and none is taken.
 */
export class ArchivedPayloads {
  private readonly urlId: Statement<[string], { id: number }>;
  private readonly captures: Statement<[number, number], { bodyId: number; fetchedAt: string; sha1: string | null }>;

  constructor(db: Database) {
    this.urlId = db.prepare('SELECT id FROM url WHERE url = ?');
    this.captures = db.prepare(`
      SELECT r.body_id AS bodyId, r.fetched_at AS fetchedAt, b.sha1 FROM response r JOIN body b ON b.id = r.body_id WHERE r.url_id = ?
      UNION ALL
      SELECT c.body_id, c.fetched_at, b.sha1 FROM capture c JOIN body b ON b.id = c.body_id WHERE c.url_id = ?`);
  }

  find(original: ArchivedOriginal): StoredPayload | undefined {
    const digest = original.digest ? archiveDigest(original.digest) : undefined;
    if (!original.key || (!digest && !original.date)) return undefined;
    const url = this.urlId.get(original.key);
    if (!url) return undefined;
    const captures = this.captures.all(url.id, url.id);
    const found = digest
      ? captures.find((capture) => capture.sha1 === digest)
      : captures.find((capture) => capture.fetchedAt === original.date);
    return found && { urlId: url.id, bodyId: found.bodyId };
  }
}
