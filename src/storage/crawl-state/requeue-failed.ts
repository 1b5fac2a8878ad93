import type { Database } from 'better-sqlite3';

/**
 * Gives every failed URL a fresh set of tries (`crawlite retry`): it is
 * queued again with its try count and error cleared. Its last response, if
 * any, stays in `pages` until the new fetch replaces it.
 */
export function requeueFailed(db: Database): number {
  return db.prepare("UPDATE url SET state = 'queued', tries = 0, error_code = NULL, error = NULL WHERE state = 'failed'").run().changes;
}
