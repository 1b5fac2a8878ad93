import { CrawliteError } from '../crawlite-error.js';

/** Where a connection string points, without its password. */
export function describeTarget(connection: string | undefined): string {
  if (!connection) return 'the PostgreSQL server named by PGHOST, PGPORT, PGDATABASE and PGUSER';
  try {
    const url = new URL(connection);
    url.password = '';
    return url.href;
  } catch {
    return 'the PostgreSQL server named by the connection string';
  }
}

export class PgUnreachableError extends CrawliteError {
  constructor(connection: string | undefined, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      'PG_UNREACHABLE',
      `cannot reach ${describeTarget(connection)}: ${why}; check that PostgreSQL runs and the connection string (or PGHOST etc.)`,
      { cause },
    );
  }
}

export class PgSchemaTooNewError extends CrawliteError {
  constructor(found: number, known: number) {
    super(
      'PG_SCHEMA_TOO_NEW',
      `the frontier's schema is version ${found}, newer than this crawlite knows (${known}): upgrade crawlite on this machine`,
    );
  }
}

export class NoFrontierError extends CrawliteError {
  constructor(connection: string | undefined) {
    super('NO_FRONTIER', `${describeTarget(connection)} holds no crawl: create one with crawlite frontier init <conn> --roots URL...`);
  }
}

export class FrontierExistsError extends CrawliteError {
  constructor(connection: string | undefined) {
    super(
      'FRONTIER_EXISTS',
      `${describeTarget(connection)} already holds a crawl; start workers on it with crawlite worker <conn> --db shard.sqlite`,
    );
  }
}

/** Errors of the connection itself (refused, reset, server shutting down), as opposed to a bad statement. */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error ? String(error.code) : '';
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN'].includes(code)) return true;
  // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 08xxx connection exceptions,
  // 53300 too many clients (the server is full for now: other workers' connections, a pooler's limit).
  if (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}
