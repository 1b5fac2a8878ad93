// A throwaway PostgreSQL cluster on 127.0.0.1 (Debian's postgresql 15: initdb and pg_ctl in a temp dir, trust
// auth, no fsync, a free port), for the scale-out bench and the tests (test/support/postgres.ts). Never the
// machine's own cluster: its files and its port are its own, and destroy() removes them.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Debian's postgresql package (15); .ci/run installs it. */
const BIN = '/usr/lib/postgresql/15/bin';
export const POSTGRES_INSTALLED = ['initdb', 'pg_ctl', 'postgres'].every((name) => existsSync(join(BIN, name)));
export const POSTGRES_INSTALL = 'apt-get install postgresql';

/** initdb refuses to run as root: there, the cluster belongs to the postgres user. */
const asRoot = process.getuid?.() === 0;
const tool = (name, args) =>
  asRoot
    ? run('runuser', ['-u', 'postgres', '--', join(BIN, name), ...args], { timeout: 60_000 })
    : run(join(BIN, name), args, { timeout: 60_000 });

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function ready(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last;
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

const readFirstLine = (file) => readFileSync(file, 'utf8').split('\n')[0];

/** Starts a cluster; `settings` are extra `-c name=value` server settings. */
export async function startPostgres({ settings = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'crawlite-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await tool('initdb', ['-A', 'trust', '-U', 'postgres', '-D', data, '--no-sync']);
  const port = await freePort();
  const all = {
    listen_addresses: '127.0.0.1',
    port,
    unix_socket_directories: dir,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    ...settings,
  };
  const options = Object.entries(all)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const start = async () => {
    await tool('pg_ctl', ['start', '-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '30']);
    await ready(url, 15_000);
  };
  const stop = () => tool('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', '30']);
  await start();
  let stopped = false;
  /** The URL of one of the cluster's databases. */
  const urlOf = (database) => url.replace(/\/postgres$/, `/${database}`);
  const query = async (sql, params = [], database = 'postgres') => {
    const client = new pg.Client({ connectionString: urlOf(database) });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    url,
    port,
    dir,
    /** The postmaster's PID (first line of postmaster.pid), for CPU sampling and a last-resort kill. */
    pid: () => {
      try {
        return Number(readFirstLine(join(data, 'postmaster.pid')));
      } catch {
        return undefined;
      }
    },
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
    urlOf,
    createDatabase: async (name) => {
      await query(`CREATE DATABASE ${name}`);
      return urlOf(name);
    },
    query,
  };
}
