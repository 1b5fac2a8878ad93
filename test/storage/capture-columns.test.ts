import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { CAPTURE_ROW_COLUMNS } from '../../src/storage/writer/capture-writer.js';
import { tempDir } from '../support/archive.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** The columns outside CAPTURE_ROW_COLUMNS: a capture's own id, its keys, link counts and the 304 flag (filled apart). */
const FILLED_APART = ['id', 'url_id', 'run_id', 'body_id', 'links_found', 'links_new', 'revalidated'];

describe("a capture's columns, spelled once", () => {
  it('names every column of response and capture in the current schema, each once', () => {
    const db = openArchive(tmp.path('schema.sqlite'), 'create');
    const columnsOf = (table: string) =>
      (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as Array<{ name: string }>)
        .map((row) => row.name)
        .filter((name) => !FILLED_APART.includes(name))
        .sort();
    const written = [...CAPTURE_ROW_COLUMNS].sort();
    expect(new Set(written).size).toBe(written.length);
    expect(columnsOf('response')).toEqual(written);
    expect(columnsOf('capture')).toEqual(written);
    db.close();
  });
});
