import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCli, spawnCli } from './support/cli.js';
import { readArchive, tempDir } from './support/archive.js';
import { sitePaths, startLinkedSite } from './support/linked-site.js';
import { noticeIfMissing, POSTGRES_INSTALLED, useCluster } from './support/postgres.js';
import type { TestServer } from './support/test-server.js';
import { sleep, waitFor, within } from './support/wait.js';

// A PostgreSQL server full of other clients (too many workers for its max_connections, say) is an outage
// like a lost connection: the worker says so once, waits, and carries on when connections free up.
noticeIfMissing('pg-full-server');

const PAGES = 60;
/** Room for four connections in all; the test holds three of them, the worker gets one. */
const MAX_CONNECTIONS = 4;

describe.skipIf(!POSTGRES_INSTALLED)('a worker on a PostgreSQL server with no connection to spare', () => {
  const server = useCluster({ settings: { max_connections: MAX_CONNECTIONS, superuser_reserved_connections: 0 } });
  let site: TestServer;
  const tmp = tempDir();

  beforeAll(async () => {
    site = await startLinkedSite(PAGES, 5);
  });
  afterAll(async () => {
    await site?.close();
    tmp.cleanup();
  });

  it('says once that the server is full, waits, and finishes the site once connections are free', async () => {
    expect((await execCli(['frontier', 'init', server.url, '--roots', site.url])).code).toBe(0);
    const others: pg.Client[] = [];
    for (let i = 0; i < MAX_CONNECTIONS - 1; i += 1) {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      others.push(client);
    }
    const shard = tmp.path('shard.sqlite');
    const worker = spawnCli(['worker', server.url, '--db', shard, '-c', '4']);
    try {
      await waitFor(
        'the worker to say the server is full',
        () => /too many clients/.test(worker.output().stderr) || worker.exitCode !== null,
        60_000,
      );
      expect(worker.exitCode, worker.output().stderr).toBeNull();
      await sleep(500);
    } finally {
      await Promise.all(others.map((client) => client.end()));
    }
    const end = await within(worker.exited, 120_000, 'the worker', () => worker.kill('SIGKILL'));
    expect(end.code, end.stderr).toBe(0);
    expect(
      end.stderr
        .trim()
        .split('\n')
        .filter((line) => /too many clients/.test(line)),
    ).toHaveLength(1);
    const stored = readArchive<{ url: string }>(shard, 'SELECT url FROM pages').map((row) => new URL(row.url).pathname);
    expect(stored.sort()).toEqual([...sitePaths(PAGES)].sort());
  }, 240_000);
});
