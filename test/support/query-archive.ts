import { closeArchive, openArchive } from '../../src/storage/archive/open-archive.js';

/** An empty crawlite archive: enough for queries that make their own rows (recursive CTEs). */
export function emptyArchive(path: string): string {
  closeArchive(openArchive(path, 'create'));
  return path;
}

/** Counts for ever in one SQLite step: no row, no return to JavaScript until it is stopped. */
export const ENDLESS_COUNT = 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c';

/** Rows 1, 2, 3, ... for ever. */
export const ENDLESS_ROWS = 'with recursive c(x) as (select 1 union all select x + 1 from c) select x from c';
