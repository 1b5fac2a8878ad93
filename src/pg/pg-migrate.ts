import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { PgSchemaTooNewError } from './pg-errors.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/pg/', import.meta.url));
const FILE_NAME = /^(\d{4})_[\w-]+\.sql$/;
/** Held while migrating, so two `frontier init` at once apply each file once. */
const MIGRATION_LOCK = 0x6372_6177;

interface PgMigration {
  version: number;
  sql: string;
}

function loadPgMigrations(): PgMigration[] {
  return readdirSync(MIGRATIONS_DIR)
    .map((name) => ({ name, match: FILE_NAME.exec(name) }))
    .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ name, match }) => ({ version: Number(match[1]), sql: readFileSync(`${MIGRATIONS_DIR}/${name}`, 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/** The schema version the database is at (0: none yet). */
export async function schemaVersion(client: pg.ClientBase): Promise<number> {
  const table = await client.query<{ found: string | null }>("SELECT to_regclass('crawlite_schema') AS found");
  if (!table.rows[0]?.found) return 0;
  const row = await client.query<{ version: number }>('SELECT version FROM crawlite_schema');
  return row.rows[0]?.version ?? 0;
}

/** Refuses a schema newer than the code; returns the version found. */
export async function checkSchema(client: pg.ClientBase): Promise<number> {
  const known = loadPgMigrations().at(-1)?.version ?? 0;
  const found = await schemaVersion(client);
  if (found > known) throw new PgSchemaTooNewError(found, known);
  return found;
}

/** Applies each numbered file newer than the database's version, each with its version in one transaction. */
export async function migratePg(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS crawlite_schema (version integer NOT NULL)');
    const current = await checkSchema(client);
    for (const migration of loadPgMigrations()) {
      if (migration.version <= current) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('DELETE FROM crawlite_schema');
        await client.query('INSERT INTO crawlite_schema (version) VALUES ($1)', [migration.version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
