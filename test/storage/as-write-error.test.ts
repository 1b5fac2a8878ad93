import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { ArchiveWriteError, asWriteError, NothingToResumeError } from '../../src/storage/archive/archive-errors.js';

// The disk can fill during any write, not only a page's commit: a claim, the run's end.
it('turns a full database met by any statement into an ArchiveWriteError naming the file', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (x BLOB)');
  db.pragma('max_page_count = 2');
  let met: unknown;
  try {
    db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(64 * 1024));
  } catch (error) {
    met = error;
  }
  expect(String((met as { code?: string }).code)).toBe('SQLITE_FULL');
  const reported = asWriteError('site.sqlite', met);
  expect(reported).toBeInstanceOf(ArchiveWriteError);
  expect((reported as ArchiveWriteError).message).toMatch(/^cannot write to site\.sqlite: .*full.*consistent.*resume/);
  db.close();
});

it('leaves other errors as they are, crawlite errors included', () => {
  const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  expect(asWriteError('a.sqlite', busy)).toBe(busy);
  const own = new NothingToResumeError('a.sqlite');
  expect(asWriteError('a.sqlite', own)).toBe(own);
  const io = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });
  expect(asWriteError('a.sqlite', io)).toBeInstanceOf(ArchiveWriteError);
});
