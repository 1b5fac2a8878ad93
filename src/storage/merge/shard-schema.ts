import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { loadMigrations, migrate } from '../archive/migrate.js';

/** One row of sqlite_schema. */
interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

const READ = 'SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name';

/**
 * Tables SQLite itself creates when a user runs ANALYZE: statistics for the query planner, no code.
 * A shard may hold them; no view or trigger can take these names.
 */
const SQLITE_STATISTICS: Record<string, string> = {
  sqlite_stat1: 'CREATE TABLE sqlite_stat1(tbl,idx,stat)',
  sqlite_stat4: 'CREATE TABLE sqlite_stat4(tbl,idx,neq,nlt,ndlt,sample)',
};

let expected: Map<string, SchemaObject> | undefined;

/** Tables, indexes and views share one namespace in SQLite; triggers have their own. */
const keyOf = (object: SchemaObject) => (object.type === 'trigger' ? `trigger ${object.name}` : object.name);

/** The schema this crawlite makes: every migration applied to an empty database, as a new archive gets them. */
function expectedSchema(): Map<string, SchemaObject> {
  if (expected) return expected;
  const db = new Database(':memory:');
  try {
    migrate(db, loadMigrations());
    expected = new Map(
      db
        .prepare<[], SchemaObject>(READ)
        .all()
        .map((row) => [keyOf(row), row]),
    );
    return expected;
  } finally {
    db.close();
  }
}

const kind = (object: SchemaObject) =>
  object.type === 'table' && object.sql?.startsWith('CREATE VIRTUAL TABLE') ? 'virtual table' : object.type;

/**
 * The first object of a shard's schema that is not exactly the one crawlite makes at the current schema
 * version, said in words (`"body" is a view where crawlite has a table`), or undefined when every table,
 * index, view and trigger is crawlite's own and none is missing. Only sqlite_schema is read: no view or
 * trigger of the shard runs.
 */
export function schemaDifference(db: Db): string | undefined {
  const want = expectedSchema();
  const found = db.prepare<[], SchemaObject>(READ).all();
  // A text layout crawlite makes itself, but merge reads only the plain one.
  if (found.some((object) => object.type === 'table' && object.name === 'page_text_zlib'))
    return 'its page text is compact (crawlite compact); run `crawlite compact --undo` on a copy of it first';
  const seen = new Set<string>();
  for (const object of found) {
    seen.add(keyOf(object));
    const mine = want.get(keyOf(object));
    if (!mine) {
      if (object.type === 'table' && SQLITE_STATISTICS[object.name] === object.sql) continue;
      return `it has a ${kind(object)} "${object.name}" that crawlite never makes`;
    }
    if (mine.type !== object.type || kind(mine) !== kind(object))
      return `"${object.name}" is a ${kind(object)} where crawlite has a ${kind(mine)}`;
    if (mine.tbl_name !== object.tbl_name)
      return `${kind(object)} "${object.name}" belongs to "${object.tbl_name}", crawlite's to "${mine.tbl_name}"`;
    if (mine.sql !== object.sql) return `${kind(object)} "${object.name}" is not defined as crawlite defines it`;
  }
  for (const [key, object] of want) {
    if (!seen.has(key)) return `it lacks crawlite's ${kind(object)} "${object.name}"`;
  }
  return undefined;
}
