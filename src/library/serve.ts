/** An archive browsed in a web browser, as `crawlite serve`: the UI on one origin, replay on another. */
export interface ServeInput {
  /** The archive file; opened read-only, so a crawl may be writing it. */
  db: string;
  /** The address to listen on; anything but loopback exposes the archive to the network. Default 127.0.0.1. */
  host?: string;
  /** The UI's port; 0 picks a free one. */
  port: number;
  /** The replay origin's port, where archived pages run; 0 (the default) picks a free one. */
  replayPort?: number;
  /** The time limit of one search, and of one statement of the SQL page, in ms (default 5000). */
  searchTimeoutMs?: number;
}

export interface ServingArchive {
  /** `http://127.0.0.1:PORT/` */
  uiUrl: string;
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  replayOrigin: string;
  /** Whether only this machine can reach it. */
  loopback: boolean;
  close(): Promise<void>;
}

/** Serves the archive until close(); a port in use rejects with ServeListenError. */
export async function serve(input: ServeInput): Promise<ServingArchive> {
  const { serveArchive, isLoopback } = await import('../serve/serve-archive.js');
  const host = input.host ?? '127.0.0.1';
  const serving = await serveArchive({
    path: input.db,
    host,
    port: input.port,
    ...(input.replayPort !== undefined ? { replayPort: input.replayPort } : {}),
    ...(input.searchTimeoutMs !== undefined ? { searchTimeoutMs: input.searchTimeoutMs } : {}),
  });
  return { uiUrl: serving.uiUrl, replayOrigin: serving.replayOrigin, loopback: isLoopback(host), close: () => serving.close() };
}
