import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ArchiveReader } from '../storage/archive-reader.js';

// What the replay origin serves. Until replay is part of the build it answers 404,
// so the UI and its frame work and say plainly that there is nothing to replay.

export interface ReplayContext {
  archive: ArchiveReader;
  replayOrigin: string;
  uiOrigin: string;
}

export function createReplayHandler(_context: ReplayContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
    res.end('replay is not available in this build of crawlite\n');
  };
}
