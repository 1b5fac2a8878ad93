import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach } from 'vitest';
import { execCli, spawnCli, type CliRun } from './cli.js';
import { killAll } from './process-tree.js';
import { readArchive } from './archive.js';
import { replyAfter } from './delayed-reply.js';
import { startServer, type TestServer } from './test-server.js';

/**
 * A slow site to steer a crawl on: `/` links to `pages` pages (/p/0 ...); each page links to `trap` URLs of
 * its own (/doc?id=<page>-<k>, a trap of heading anchors). Every answer comes after `delayMs` (cancelled when
 * the client goes away); `log` lists each request's path in the order they came.
 */
export interface ControlSite extends TestServer {
  log: string[];
  /** For each request in `log`, the requests in flight as it came, itself included. */
  inFlightAtStart: number[];
}

export async function startControlSite(options: { pages: number; trap?: number; delayMs: number }): Promise<ControlSite> {
  const log: string[] = [];
  const inFlightAtStart: number[] = [];
  const page = (links: string[]) =>
    `<!doctype html><html><head><title>t</title></head><body>${links.map((href) => `<a href="${href}">x</a>`).join(' ')}</body></html>`;
  const server: TestServer = await startServer((_req, res, path) => {
    log.push(path);
    inFlightAtStart.push(server.inFlight);
    let body: string | undefined;
    if (path === '/robots.txt') body = undefined;
    else if (path === '/') body = page(Array.from({ length: options.pages }, (_, i) => `/p/${i}`));
    else if (/^\/p\/\d+$/.test(path)) body = page(Array.from({ length: options.trap ?? 0 }, (_, k) => `/doc?id=${path.slice(3)}-${k}`));
    else if (path.startsWith('/doc?')) body = page([]);
    return replyAfter(res, { body, delayMs: path === '/robots.txt' ? 0 : options.delayMs });
  });
  return Object.assign(server, { log, inFlightAtStart });
}

/** The archive's stored control settings, by name. */
export function controlSettings(db: string): Record<string, string> {
  return Object.fromEntries(
    readArchive<{ name: string; value: string }>(db, 'SELECT name, value FROM control_setting').map((row) => [row.name, row.value]),
  );
}

/** `crawlite control DB ...args`, as a second process. */
export const control = (db: string, ...args: string[]): Promise<CliRun> => execCli(['control', db, ...args]);

/** The crawl's live row, as the running crawl wrote it last; undefined until the crawl has made the archive and the row. */
export function liveRow(db: string): LiveRow | undefined {
  return readOnceMade<LiveRow>(db, 'SELECT pid, state, paused_by, in_flight, concurrency, per_host FROM crawl_live')[0];
}

/** Rows of an archive a crawl is making: none until it has made and migrated the file. */
function readOnceMade<T>(db: string, sql: string, ...params: unknown[]): T[] {
  if (!existsSync(db)) return [];
  try {
    return readArchive<T>(db, sql, ...params);
  } catch (error) {
    if (/no such table/.test(String(error))) return [];
    throw error;
  }
}

interface LiveRow {
  pid: number;
  state: string;
  paused_by: string | null;
  in_flight: number;
  concurrency: number;
  per_host: number;
}

/** The archive's URLs in one state (and with one error code, if given); 0 until the crawl has made the archive. */
export function urlCount(db: string, state: string, errorCode?: string): number {
  const sql = `SELECT count(*) AS n FROM url WHERE state = ?${errorCode === undefined ? '' : ' AND error_code = ?'}`;
  return readOnceMade<{ n: number }>(db, sql, ...(errorCode === undefined ? [state] : [state, errorCode]))[0]?.n ?? 0;
}

/** Starts the CLI as a process of the calling test file's; each is killed, with its children, after every test. */
export function crawlProcesses(): (argv: string[]) => ReturnType<typeof spawnCli> {
  const children: ChildProcess[] = [];
  afterEach(() => killAll(children));
  return (argv) => {
    const child = spawnCli(argv);
    children.push(child);
    return child;
  };
}
