import Database from 'better-sqlite3';
import { CrawliteError } from '../../crawlite-error.js';

/**
 * better-sqlite3's native part could not be loaded: never built (npm 12 runs a dependency's install
 * script only when package.json's `allowScripts` names it), built for another Node.js, or missing.
 * Without this, the first file crawlite opens (the lock file, usually) takes the blame.
 */
export class SqliteDriverError extends CrawliteError {
  constructor(cause: unknown) {
    super('SQLITE_DRIVER', `the SQLite driver (better-sqlite3) cannot load: ${reasonOf(cause)}`, { cause });
  }
}

const REBUILD = 'run `npm rebuild better-sqlite3` where crawlite is installed';
const ALLOW =
  'with npm 12 or newer, allow its install script first: `"allowScripts": { "better-sqlite3": true }` in your package.json (see docs/library.md), then ' +
  REBUILD;

function reasonOf(cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  if (/NODE_MODULE_VERSION|compiled against a different Node\.js version/i.test(message)) {
    return `it was built for another version of Node.js (this is ${process.version}); ${REBUILD}`;
  }
  if (/Could not locate the bindings file|Cannot find module|ENOENT/i.test(message)) {
    return `its native part was never built (its install script was blocked or failed); ${ALLOW}`;
  }
  return `${message.split('\n')[0]}; ${REBUILD}`;
}

let loaded = false;

/** Loads the driver once, so a missing or mismatched build is reported as what it is. */
export function requireSqliteDriver(): void {
  if (loaded) return;
  try {
    new Database(':memory:').close();
    loaded = true;
  } catch (error) {
    throw new SqliteDriverError(error);
  }
}
