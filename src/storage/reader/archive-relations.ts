import type { Database } from 'better-sqlite3';

// The views and tables an archive holds, with their columns, for browsing them
// a page at a time. A relation's key is what its rows are ordered and paged by
// (`key > after`): unique, so paging by it shows each row once.

export interface ArchiveRelation {
  name: string;
  type: 'view' | 'table';
  columns: string[];
  /** Unique, non-null columns to page by; empty when none is known (a view without one): only its first rows are shown. */
  key: string[];
}

/**
 * The keys of the views the README documents. `captures` and `fetches` have none
 * (two captures of a URL may share their time), so they are not paged.
 */
const VIEW_KEYS: Record<string, string[]> = {
  pages: ['url'],
  urls: ['url'],
  links: ['from_url', 'to_url'],
  changes: ['url'],
  screenshots: ['url', 'fetched_at'],
  render_notes: ['url', 'fetched_at', 'note'],
  capture_notes: ['url', 'fetched_at', 'note'],
};

interface ListedRelation {
  name: string;
  type: string;
  wr: number;
}

interface ColumnInfo {
  name: string;
  type: string;
  pk: number;
}

/** A table's key: its primary key columns without a rowid, else its INTEGER PRIMARY KEY, else the rowid itself. */
function tableKey(columns: ColumnInfo[], withoutRowid: boolean): string[] {
  const pk = columns.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk);
  if (withoutRowid) return pk.map((column) => column.name);
  if (pk.length === 1 && pk[0]!.type.toUpperCase() === 'INTEGER') return [pk[0]!.name];
  return ['rowid'];
}

/** Views first (the stable contract), then tables, each by name; SQLite's own and FTS5's shadow tables are left out. */
export function archiveRelations(db: Database): ArchiveRelation[] {
  const listed = db
    .prepare<[], ListedRelation>(
      `SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main' AND type IN ('view', 'table', 'virtual')
       AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type = 'view' DESC, name`,
    )
    .all();
  const columnsOf = db.prepare<[string], ColumnInfo>('SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid');
  return listed.map((relation) => {
    const info = columnsOf.all(relation.name);
    const columns = info.map((column) => column.name);
    if (relation.type === 'view') {
      const key = Object.hasOwn(VIEW_KEYS, relation.name) ? VIEW_KEYS[relation.name]! : [];
      return { name: relation.name, type: 'view', columns, key: key.every((name) => columns.includes(name)) ? key : [] };
    }
    return { name: relation.name, type: 'table', columns, key: tableKey(info, relation.wr === 1) };
  });
}
