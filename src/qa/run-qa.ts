import { launchReplayBrowser, type ReplayBrowser } from '../browser/index.js';
import { serveArchive, type ServingArchive } from '../serve/serve-archive.js';
import { checkArchiveFile, NotAnArchiveError, type LockOwner } from '../storage/archive/index.js';
import { LockedArchive } from '../storage/crawl-state/index.js';
import type { QaPage } from '../storage/reader/index.js';
import type { QaCheck } from '../storage/writer/index.js';
import { ImageDecoder } from './decode-image.js';
import { QaBrowserError } from './qa-errors.js';
import { BrowserGone, scorePage } from './score-page.js';
import type { ReplayTab } from './replay-tab.js';

export interface QaRunOptions {
  /** An existing archive. */
  path: string;
  /** The Chromium to run, already found. */
  chromium: string;
  /** Pages replayed at once, each in a tab of its own. */
  concurrency: number;
  /** How long one page's replay and measures may take; past it, the page is stored as failed. */
  pageTimeoutMs: number;
  owner: LockOwner;
  onWait?: (message: string) => void;
  /** Told once before the first page (done 0), then after each page is stored. */
  onProgress?: (done: number, total: number) => void;
  /** Aborting it ends the run after the pages being replayed; their scores and all before stay. */
  signal?: AbortSignal;
}

export interface QaRunResult {
  /** Pages to replay when the run began. */
  total: number;
  /** Pages scored by this run. */
  checked: number;
  /** Of those, pages whose replay could not be measured (stored with their error and score 0). */
  errors: number;
  stopped: boolean;
  /** When the run began (ISO): the rows it stored are those checked since. */
  startedAt: string;
}

/** Pages read from the archive at a time: memory holds one batch, whatever the archive's size. */
const BATCH = 32;

/**
 * Replays every page of the archive (the latest capture of each HTML page) through crawlite's own
 * `serve` on 127.0.0.1, in a Chromium that reaches nothing but that server, `concurrency` at once,
 * and stores a score per page as it goes. Holds the archive's lock (as a crawl does) while it writes.
 */
export async function runQa(options: QaRunOptions): Promise<QaRunResult> {
  if (checkArchiveFile(options.path)) throw new NotAnArchiveError(options.path, 'an empty file');
  // Opened for writing first: an older archive is migrated (the qa table) before serve reads it.
  const archive = await LockedArchive.open(options.path, 'existing', options.owner, options.onWait ? { onWait: options.onWait } : {});
  const startedAt = new Date().toISOString();
  let serving: ServingArchive | undefined;
  let browser: ReplayBrowser | undefined;
  try {
    const pages = archive.qaPages();
    const writer = archive.qaWriter();
    const total = pages.total();
    options.onProgress?.(0, total);
    if (total === 0) return { total, checked: 0, errors: 0, stopped: false, startedAt };
    serving = await serveArchive({ path: options.path, host: '127.0.0.1', port: 0 });
    const ports = new Set([new URL(serving.uiUrl).port, new URL(serving.replayOrigin).port]);
    // Loopback at the server's ports only: replay may name an archived origin as <label>.localhost.
    const reaches = (url: URL) =>
      (url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname.endsWith('.localhost')) && ports.has(url.port);
    browser = await launchReplayBrowser(options.chromium, reaches).catch((cause: unknown) => {
      throw new QaBrowserError(options.chromium, cause, 'would not start to replay the archive');
    });
    const { context } = browser;
    const decoder = await ImageDecoder.open(context);

    let batch: QaPage[] = [];
    let after = 0;
    const nextPage = (): QaPage | undefined => {
      if (batch.length === 0) {
        batch = pages.after(after, BATCH);
        if (batch.length > 0) after = batch[batch.length - 1]!.urlId;
      }
      return batch.shift();
    };

    let checked = 0;
    let errors = 0;
    // Chromium gone: every page after would fail for a reason of the machine's, not of the archive's.
    let quit: QaBrowserError | undefined;
    const place = { context, decoder, uiUrl: serving.uiUrl, pageTimeoutMs: options.pageTimeoutMs };
    const worker = async () => {
      let tab: ReplayTab | undefined;
      try {
        for (let page = nextPage(); page && !options.signal?.aborted && !quit; page = quit ? undefined : nextPage()) {
          let check: QaCheck;
          try {
            ({ check, tab } = await scorePage(place, { ...page, material: pages.material(page) }, tab));
          } catch (cause) {
            if (!(cause instanceof BrowserGone)) throw cause;
            quit ??= new QaBrowserError(options.chromium, cause, 'quit while replaying the archive');
            break;
          }
          writer.record(check);
          checked += 1;
          if (check.error) errors += 1;
          options.onProgress?.(checked, total);
        }
      } finally {
        await tab?.close();
      }
    };
    // Settled, not all: no worker is still writing when the archive closes.
    const ended = await Promise.allSettled(Array.from({ length: Math.max(1, options.concurrency) }, worker));
    if (quit) throw quit;
    for (const end of ended) if (end.status === 'rejected') throw end.reason;
    return { total, checked, errors, stopped: options.signal?.aborted === true && checked < total, startedAt };
  } finally {
    await browser?.close();
    await serving?.close();
    archive.close();
  }
}
