import pg from 'pg';
import { PgUnreachableError } from './pg-errors.js';

/** How long a connection attempt may take before the server counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * A pool on the frontier's database; with no connection string, pg reads
 * PGHOST, PGPORT, PGDATABASE, PGUSER and PGPASSWORD. The first connection
 * is made at once, so an unreachable server is one clear error up front.
 */
export async function connectFrontier(connection: string | undefined, max = 4): Promise<pg.Pool> {
  const pool = new pg.Pool({ ...(connection ? { connectionString: connection } : {}), max, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An idle connection the server dropped is reported here; the next query opens another.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new PgUnreachableError(connection, error);
  }
  return pool;
}
