// The cluster itself is started by scripts/bench/postgres.mjs, shared with the scale-out bench.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { POSTGRES_INSTALL, POSTGRES_INSTALLED, startPostgres, type Postgres } from '../../scripts/bench/postgres.mjs';

export { POSTGRES_INSTALLED, startPostgres, type Postgres } from '../../scripts/bench/postgres.mjs';

/** Says once, visibly, why a test file's PostgreSQL tests are skipped. */
export function noticeIfMissing(file: string): void {
  if (!POSTGRES_INSTALLED) console.log(`${file}: skipping the PostgreSQL tests: PostgreSQL 15 is not installed (${POSTGRES_INSTALL})`);
}

/** The frontier schema version this crawlite migrates to: its newest numbered file in migrations/pg. */
export const NEWEST_PG_SCHEMA = Math.max(
  ...readdirSync(new URL('../../migrations/pg/', import.meta.url)).map((name) => Number(name.slice(0, 4))),
);

const CLUSTER_HOOK_MS = 120_000;

/**
 * Within a describe (or a file): a throwaway cluster started before its tests and destroyed after them,
 * as a Postgres whose members reach the running cluster. Starts nothing where PostgreSQL is not installed.
 */
export function useCluster(options?: Parameters<typeof startPostgres>[0]): Postgres {
  let cluster: Postgres | undefined;
  // initdb and a server start take seconds on a quiet machine, many more on a loaded one.
  beforeAll(async () => {
    if (POSTGRES_INSTALLED) cluster = await startPostgres(options);
  }, CLUSTER_HOOK_MS);
  afterAll(async () => {
    await cluster?.destroy();
  }, CLUSTER_HOOK_MS);
  const running = (): Postgres => {
    if (!cluster) throw new Error('the PostgreSQL cluster of this test file is not running');
    return cluster;
  };
  return {
    get url() {
      return running().url;
    },
    get port() {
      return running().port;
    },
    get dir() {
      return running().dir;
    },
    pid: () => running().pid(),
    stop: () => running().stop(),
    restart: () => running().restart(),
    destroy: () => running().destroy(),
    urlOf: (database) => running().urlOf(database),
    createDatabase: (name) => running().createDatabase(name),
    query: (sql, params, database) => running().query(sql, params, database),
  };
}
