import type pg from 'pg';

/**
 * Runs `work` in one transaction on a connection of the pool. A connection cut mid-transaction is
 * reported on the client's `error` event (and by the query under way, which rejects); such a
 * connection, or one whose ROLLBACK failed, is destroyed rather than returned to the pool.
 */
export async function pooledTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  const onError = () => (broken = true);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw error;
    }
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
