import { mkdirSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/storage/archive/migrate.js';
import { APPLICATION_ID, openArchive } from '../../src/storage/archive/open-archive.js';
import { tempDir, UNDO_SCHEMA_8 } from '../support/archive.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('migrations', () => {
  it('brings a new archive to the latest schema and marks it as crawlite', () => {
    const db = openArchive(tmp.path('new.sqlite'), 'create');
    expect(db.pragma('user_version', { simple: true })).toBe(loadMigrations().at(-1)!.version);
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('applies numbered files in order, each with its version bump in one transaction', () => {
    const dir = tmp.path('migrations');
    mkdirSync(dir);
    writeFileSync(`${dir}/0001_first.sql`, 'CREATE TABLE a (x INTEGER) STRICT;');
    writeFileSync(`${dir}/0002_second.sql`, 'CREATE TABLE b (y INTEGER) STRICT; INSERT INTO nowhere VALUES (1);');
    const db = new Database(tmp.path('m.sqlite'));
    expect(() => migrate(db, loadMigrations(dir))).toThrow(/nowhere/);
    // The first applied; the second failed whole: no table b, version still 1.
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all()).toEqual([{ name: 'a' }]);
    db.close();
  });

  it('refuses a gap in the numbering', () => {
    const dir = tmp.path('gap');
    mkdirSync(dir);
    writeFileSync(`${dir}/0001_first.sql`, 'SELECT 1;');
    writeFileSync(`${dir}/0003_third.sql`, 'SELECT 1;');
    expect(() => loadMigrations(dir)).toThrow(/out of sequence/);
  });

  it('takes an archive of schema 7 to exactly the schema a new archive has (migrations 8 to the last)', () => {
    const schema = (db: Database.Database) => db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name').all();
    const fresh = openArchive(tmp.path('fresh.sqlite'), 'create');
    const expected = schema(fresh);
    fresh.close();
    const path = tmp.path('schema7.sqlite');
    const old = openArchive(path, 'create');
    old.exec(UNDO_SCHEMA_8);
    expect(old.pragma('user_version', { simple: true })).toBe(7);
    expect(schema(old)).not.toEqual(expected);
    old.close();
    const upgraded = openArchive(path, 'create');
    expect(schema(upgraded)).toEqual(expected);
    upgraded.close();
  });
});
