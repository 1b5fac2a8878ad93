// The cluster itself is started by scripts/bench/postgres.mjs, shared with the scale-out bench.
import { readdirSync } from 'node:fs';
import { POSTGRES_INSTALL, POSTGRES_INSTALLED } from '../../scripts/bench/postgres.mjs';

export { POSTGRES_INSTALLED, startPostgres, type Postgres } from '../../scripts/bench/postgres.mjs';

/** Says once, visibly, why a test file's PostgreSQL tests are skipped. */
export function noticeIfMissing(file: string): void {
  if (!POSTGRES_INSTALLED) console.log(`${file}: skipping the PostgreSQL tests: PostgreSQL 15 is not installed (${POSTGRES_INSTALL})`);
}

/** The frontier schema version this crawlite migrates to: its newest numbered file in migrations/pg. */
export const NEWEST_PG_SCHEMA = Math.max(...readdirSync(new URL('../../migrations/pg/', import.meta.url)).map((name) => Number(name.slice(0, 4))));
