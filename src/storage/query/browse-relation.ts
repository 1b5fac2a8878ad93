import type { ArchiveRelation } from '../reader/archive-relations.js';

// One page of a view or table, after a key, as a statement and its parameters for
// the query worker. Names come from the archive's schema and are quoted; the key
// the page starts after is bound, never spliced into the SQL.

/** Text cells longer than this are cut for display; BLOBs are shown by their size. */
export const BROWSE_CELL_CHARS = 500;

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A column as the browser shows it: a BLOB as `<N bytes>` (its bytes never read out), long text cut. */
function shownColumn(name: string): string {
  const column = quoted(name);
  return `CASE typeof(${column}) WHEN 'blob' THEN '<' || length(${column}) || ' bytes>' WHEN 'text' THEN CASE WHEN length(${column}) > ${BROWSE_CELL_CHARS} THEN substr(${column}, 1, ${BROWSE_CELL_CHARS}) || '…' ELSE ${column} END ELSE ${column} END AS ${column}`;
}

/**
 * `limit` rows of `relation` in key order after `after` (the key's values of the last row shown; none for the
 * first page). The key's columns come first, as stored, so the next page can start after them.
 * A relation without a key is read in its own order, first page only.
 */
export function browseRelationSql(
  relation: ArchiveRelation,
  after: readonly (string | number)[] | undefined,
  limit: number,
): { sql: string; params: unknown[] } {
  const { key } = relation;
  if (after !== undefined && after.length !== key.length)
    throw new RangeError(`${relation.name} is paged by ${key.length} key value(s), got ${after.length}`);
  const keyColumns = key.map((name) => `${quoted(name)} AS ${quoted(`key:${name}`)}`);
  const columns = [...keyColumns, ...relation.columns.map(shownColumn)].join(', ');
  const keyList = key.map(quoted).join(', ');
  const where = after === undefined || key.length === 0 ? '' : `WHERE (${keyList}) > (${key.map(() => '?').join(', ')})`;
  const order = key.length ? `ORDER BY ${keyList}` : '';
  return {
    sql: `SELECT ${columns} FROM ${quoted(relation.name)} ${where} ${order} LIMIT ${Math.floor(limit)}`,
    params: after ? [...after] : [],
  };
}
