import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ArchiveFacts } from '../../src/storage/reader/archive-facts.js';
import { openArchive } from '../../src/storage/reader/archive-reader.js';
import { uiDiff } from '../../src/serve/diff-mount.js';
import { uiLive } from '../../src/serve/live-mount.js';
import { uiSql } from '../../src/serve/sql-mount.js';
import { createUiHandler } from '../../src/serve/ui/ui-handler.js';

export interface UiServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  close(): Promise<void>;
}

/**
 * The UI's handler alone over an archive, on 127.0.0.1 port 0, with the SQL page's time
 * limits given (serve's own are seconds long): what serve runs, without a replay origin.
 */
export async function startUiServer(
  path: string,
  limits: { sqlTimeoutMs?: number; downloadTimeoutMs?: number; diffTimeoutMs?: number; previewTimeoutMs?: number } = {},
): Promise<UiServer> {
  const archive = openArchive(path);
  const facts = ArchiveFacts.open(path);
  const sql = uiSql(path, limits.sqlTimeoutMs, limits.downloadTimeoutMs);
  const diff = uiDiff(path, limits.diffTimeoutMs);
  // The live page answers any Host here: serve's own host checks are tested on serve itself.
  const live = uiLive(path, undefined, limits.previewTimeoutMs);
  const server: Server = createServer(
    createUiHandler({ archive, facts, replayOrigin: 'http://127.0.0.1:1', search: undefined, sql, diff, live }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      sql.close();
      diff.close();
      live.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      archive.close();
      facts.close();
    },
  };
}
