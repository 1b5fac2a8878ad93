import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { sleep } from './wait.js';

const run = promisify(execFile);

/** Debian's postgresql package (15); .ci/run installs it. */
const BIN = '/usr/lib/postgresql/15/bin';
export const POSTGRES_INSTALLED = ['initdb', 'pg_ctl', 'postgres'].every((name) => existsSync(join(BIN, name)));

/** Says once, visibly, why a test file's PostgreSQL tests are skipped. */
export function noticeIfMissing(file: string): void {
  if (!POSTGRES_INSTALLED) console.log(`${file}: skipping the PostgreSQL tests: PostgreSQL 15 is not installed (apt-get install postgresql)`);
}

export interface Postgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** A fast shutdown: connections are cut, as when the server goes away. */
  stop(): Promise<void>;
  /** Starts it again on the same port, with the same data. */
  restart(): Promise<void>;
  /** Stops the server and removes its files. */
  destroy(): Promise<void>;
  /** One query on a connection of its own (to the database `postgres`, or the one named). */
  query<T extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[], database?: string): Promise<T[]>;
}

/** initdb refuses to run as root: there, the cluster belongs to the postgres user. */
const asRoot = process.getuid?.() === 0;
const tool = (name: string, args: string[]) =>
  asRoot ? run('runuser', ['-u', 'postgres', '--', join(BIN, name), ...args], { timeout: 60_000 }) : run(join(BIN, name), args, { timeout: 60_000 });

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function ready(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let i = 0; i < 500 && Date.now() < deadline; i += 1) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      last = error;
      await sleep(50);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw new Error(`PostgreSQL did not accept connections within ${timeoutMs} ms: ${String(last)}`);
}

/** A throwaway PostgreSQL cluster on 127.0.0.1: trust auth, no fsync, its files in a temp dir. */
export async function startPostgres(): Promise<Postgres> {
  const dir = mkdtempSync(join(tmpdir(), 'crawlite-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await tool('initdb', ['-A', 'trust', '-U', 'postgres', '-D', data, '--no-sync']);
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const start = async () => {
    await tool('pg_ctl', ['start', '-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '30']);
    await ready(url, 15_000);
  };
  const stop = async () => {
    await tool('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', '30']);
  };
  await start();
  let stopped = false;
  return {
    url,
    port,
    stop: async () => {
      await stop();
      stopped = true;
    },
    restart: async () => {
      if (!stopped) await stop();
      await start();
      stopped = false;
    },
    destroy: async () => {
      if (!stopped) await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
    query: async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = [], database = 'postgres') => {
      const client = new pg.Client({ connectionString: url.replace(/\/postgres$/, `/${database}`) });
      await client.connect();
      try {
        return (await client.query<T>(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
  };
}
