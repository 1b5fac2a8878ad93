import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReplayHandler } from '../../src/serve/replay/replay-handler.js';
import { openArchive, type ArchiveReader } from '../../src/storage/reader/archive-reader.js';

export interface ReplayServer {
  /** http://127.0.0.1:PORT, no trailing slash. */
  origin: string;
  archive: ArchiveReader;
  close(): Promise<void>;
}

/** The UI origin replay servers in tests name: nothing listens there. */
export const TEST_UI_ORIGIN = 'http://127.0.0.1:9';

/** A replay origin for the archive at `dbPath`, on 127.0.0.1 port 0. */
export async function startReplayServer(dbPath: string, uiOrigin = TEST_UI_ORIGIN): Promise<ReplayServer> {
  const archive = openArchive(dbPath);
  // The handler needs its own origin, known only once the server listens.
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handle = createReplayHandler({ archive, replayOrigin: origin, uiOrigin });
  return {
    origin,
    archive,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          archive.close();
          resolve();
        });
      }),
  };
}
