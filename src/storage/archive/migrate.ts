import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The package's migrations/: two folders up from a chunk of the bundle (dist/bundle/), three from this
 * module unbundled (src/storage/archive/, dist/storage/archive/).
 */
const MIGRATIONS_DIR =
  ['../../migrations/', '../../../migrations/'].map((up) => fileURLToPath(new URL(up, import.meta.url))).find((dir) => existsSync(dir)) ??
  fileURLToPath(new URL('../../migrations/', import.meta.url));
const FILE_NAME = /^(\d{4})_[\w-]+\.sql$/;

/** The numbered SQL files in migrations/, in order. */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .map((name) => ({ name, match: FILE_NAME.exec(name) }))
    .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ name, match }) => ({ version: Number(match[1]), name, sql: readFileSync(`${dir}/${name}`, 'utf8') }))
    .sort((a, b) => a.version - b.version);
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) throw new Error(`migration ${migration.name} is out of sequence`);
  });
  return migrations;
}

export const latestSchemaVersion = (migrations: Migration[]): number => migrations.at(-1)?.version ?? 0;

/** Applies each migration newer than the file's user_version, each with its version bump in one transaction. */
export function migrate(db: Database, migrations: Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}
