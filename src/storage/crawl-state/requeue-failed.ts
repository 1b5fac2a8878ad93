import type { Database } from 'better-sqlite3';
import { UrlRows } from '../writer/url-rows.js';

/**
 * Gives every failed URL a fresh set of tries (`crawlite retry`): it is
 * queued again with its try count and error cleared. Its last response, if
 * any, stays in `pages` until the new fetch replaces it.
 */
export function requeueFailed(db: Database): number {
  return new UrlRows(db).requeueFailed();
}
