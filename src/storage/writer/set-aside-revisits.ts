import type { Database, Statement } from 'better-sqlite3';

/** A revisit record kept until its original may have come: the record and its request as read, where it was. */
export interface SetAsideRevisit {
  seq: number;
  file: string;
  offset: number;
  /** The record's WARC fields, as [name, value] pairs in JSON. */
  fields: string;
  content: Buffer;
  request: { fields: string; content: Buffer; cutFrom: number | null } | null;
}

/**
 * Revisit records whose original was not known at their turn (a newer WARC imported before an older
 * one, a revisit written before its original), kept in a TEMP table until the last file is read: on
 * disk as SQLite spills it, not in memory, and gone with the connection, so an import killed before
 * its end reads them again when it is run again.
 */
export class SetAsideRevisits {
  private readonly insert: Statement<unknown[]>;
  private readonly after: Statement<[number, number], Record<string, unknown>>;
  private readonly remove: Statement<[number]>;

  constructor(db: Database) {
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS import_revisit_waiting (
      seq INTEGER PRIMARY KEY, file TEXT NOT NULL, offset INTEGER NOT NULL, fields TEXT NOT NULL, content BLOB NOT NULL,
      request_fields TEXT, request_content BLOB, request_cut_from INTEGER)`);
    this.insert = db.prepare(`INSERT INTO import_revisit_waiting
      (file, offset, fields, content, request_fields, request_content, request_cut_from) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    this.after = db.prepare('SELECT * FROM import_revisit_waiting WHERE seq > ? ORDER BY seq LIMIT ?');
    this.remove = db.prepare('DELETE FROM import_revisit_waiting WHERE seq = ?');
  }

  add(revisit: Omit<SetAsideRevisit, 'seq'>): void {
    const { request } = revisit;
    this.insert.run(
      revisit.file,
      revisit.offset,
      revisit.fields,
      revisit.content,
      request?.fields ?? null,
      request?.content ?? null,
      request?.cutFrom ?? null,
    );
  }

  /** The next few kept after `seq`, in the order they were read; read a few at a time, so memory holds only these. */
  next(seq: number, count: number): SetAsideRevisit[] {
    return this.after.all(seq, count).map((row) => ({
      seq: row.seq as number,
      file: row.file as string,
      offset: row.offset as number,
      fields: row.fields as string,
      content: row.content as Buffer,
      request:
        row.request_fields === null
          ? null
          : {
              fields: row.request_fields as string,
              content: row.request_content as Buffer,
              cutFrom: row.request_cut_from as number | null,
            },
    }));
  }

  /** Done with: resolved or reported. */
  drop(seq: number): void {
    this.remove.run(seq);
  }
}
