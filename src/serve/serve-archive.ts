import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CrawliteError } from '../crawlite-error.js';
import { ArchiveFacts, openArchive as openReader } from '../storage/reader/index.js';
import { uiDiff } from './diff-mount.js';
import { uiLive, type UiLive } from './live-mount.js';
import { loopbackHosts } from './loopback-hosts.js';
import { replayAddresses } from './replay-addresses.js';
import { REPLAY_DOMAIN } from './replay-host.js';
import { createReplayHandler } from './replay-mount.js';
import { uiSearch } from './search-mount.js';
import { uiSql } from './sql-mount.js';
import { createUiHandler } from './ui/ui-handler.js';

export interface ServeOptions {
  /** The archive file; opened read-only, so a crawl may be writing it. */
  path: string;
  host: string;
  /** The UI's port; 0 picks a free one. */
  port: number;
  /** The replay origin's port; 0 (the default) picks a free one. */
  replayPort?: number;
  /** The time limit of one search, and of one statement of the SQL page, in ms (default 5000). */
  searchTimeoutMs?: number;
}

export interface ServingArchive {
  /** `http://127.0.0.1:PORT/` */
  uiUrl: string;
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  replayOrigin: string;
  close(): Promise<void>;
}

export class ServeListenError extends CrawliteError {
  constructor(host: string, port: number, cause: NodeJS.ErrnoException, flag = '--port') {
    const reason =
      cause.code === 'EADDRINUSE'
        ? `port ${port} is in use; pick another with ${flag} (0 picks a free one)`
        : cause.code === 'EADDRNOTAVAIL' || cause.code === 'ENOTFOUND'
          ? `${host} is not an address of this machine`
          : cause.code === 'EACCES'
            ? `not allowed to listen on port ${port}; use one above 1023`
            : cause.message;
    super('SERVE_LISTEN', `cannot listen on ${host}:${port}: ${reason}`, { cause });
  }
}

export const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** The host part of a URL for an address: brackets for IPv6, and a loopback name for the unspecified addresses. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function listen(server: Server, host: string, port: number, flag: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(new ServeListenError(host, port, error, flag));
    server.once('error', failed);
    server.listen(port, host.replace(/^\[|\]$/g, ''), () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Serves one archive on two origins: the UI on `port`, and replay of the archived
 * pages on `replayPort` (by default a free one). Archived scripts run on the replay origin only, so
 * the same-origin policy keeps them from reading the UI. On loopback, the replay port also answers
 * each archived site's own host (`<ts>-<key>.crawlite.localhost:<replayPort>`, replay-addresses.ts).
 */
export async function serveArchive(options: ServeOptions): Promise<ServingArchive> {
  const archive = openReader(options.path);
  const facts = ArchiveFacts.open(options.path);
  const search = uiSearch(options.path, options.searchTimeoutMs);
  const sql = uiSql(options.path, options.searchTimeoutMs);
  const diff = uiDiff(options.path);
  let live: UiLive | undefined;
  const servers: Server[] = [];
  try {
    const replayServer = createServer();
    servers.push(replayServer);
    const replayPort = await listen(replayServer, options.host, options.replayPort ?? 0, '--replay-port');
    const uiServer = createServer();
    servers.push(uiServer);
    const uiPort = await listen(uiServer, options.host, options.port, '--port');
    const host = urlHost(options.host);
    const uiOrigin = `http://${host}:${uiPort}`;
    const replayOrigin = `http://${host}:${replayPort}`;
    const loopback = isLoopback(options.host);
    // On loopback, each archived site is replayed on a host of its own (the reader's browser resolves
    // `*.localhost` to this server), and the UI's replay page is served on their domain's own name.
    const replayPageOrigin = loopback ? `http://${REPLAY_DOMAIN}:${uiPort}` : undefined;
    // On loopback, requests must name this server (a DNS-rebinding page names its own host), on both origins.
    const allowedHosts = (port: number, ...more: string[]) =>
      loopback ? new Set([`${host}:${port}`, ...loopbackHosts(port), ...more]) : undefined;
    const addresses = replayAddresses(replayOrigin, loopback, () => archive.origins());
    // The live page and its controls answer the UI's own names only: not the replay page's, whose domain every replayed site shares.
    live = uiLive(options.path, new Set([`${host}:${uiPort}`, ...loopbackHosts(uiPort)]), options.searchTimeoutMs);
    const ui = createUiHandler(
      {
        archive,
        facts,
        replayOrigin,
        replayAddresses: addresses,
        ...(replayPageOrigin ? { replayPageOrigin } : {}),
        search: search.search,
        sql,
        diff,
        live,
      },
      allowedHosts(uiPort, ...(replayPageOrigin ? [new URL(replayPageOrigin).host] : [])),
    );
    const replay = createReplayHandler(
      { archive, replayOrigin, uiOrigin: replayPageOrigin ?? uiOrigin, framingOrigins: [uiOrigin], addresses },
      allowedHosts(replayPort),
    );
    uiServer.on('request', (req: IncomingMessage, res: ServerResponse) => ui(req, res));
    replayServer.on('request', (req: IncomingMessage, res: ServerResponse) => replay(req, res));
    return {
      uiUrl: `${uiOrigin}/`,
      replayOrigin,
      async close() {
        search.close();
        sql.close();
        diff.close();
        live?.close();
        await Promise.all(servers.map(stop));
        archive.close();
        facts.close();
      },
    };
  } catch (error) {
    search.close();
    sql.close();
    diff.close();
    live?.close();
    await Promise.all(servers.map(stop));
    archive.close();
    facts.close();
    throw error;
  }
}
