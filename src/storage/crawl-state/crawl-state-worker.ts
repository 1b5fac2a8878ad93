import { parentPort } from 'node:worker_threads';
import { ArchiveWriteError } from '../archive/archive-errors.js';
import { openWriterConnection } from '../archive/open-archive.js';
import {
  CLOSE,
  CLOSED,
  type CrawlStateCall,
  type CrawlStateOpen,
  type CrawlStateReady,
  type CrawlStateReply,
  type CrawlStateSetup,
  type CrossedError,
} from './crawl-state-protocol.js';
import { answerCalls } from './crawl-state-calls.js';
import { SqliteFrontier } from './sqlite-frontier.js';
import { SqlitePageSink } from './sqlite-page-sink.js';
import { SqliteControl } from '../control/sqlite-control.js';

// The crawl's frontier and page sink on a connection of their own, on this thread: the main thread keeps
// to HTTP and scheduling while pages commit here, in the order their calls were sent. Its first message
// says which archive to open, for which run.

/** The error's own SQLite code and message: a write error is rebuilt from its cause on the other side. */
function crossed(error: unknown, write = error instanceof ArchiveWriteError): CrossedError {
  const source = error instanceof ArchiveWriteError ? error.cause : error;
  const message = source instanceof Error ? source.message : String(source);
  const code = typeof source === 'object' && source !== null && 'code' in source ? String(source.code) : undefined;
  return { message, ...(code === undefined ? {} : { code }), ...(write ? { write } : {}) };
}

const port = parentPort!;
let answer: (call: CrawlStateCall) => Promise<unknown> = () => Promise.reject(new Error('the archive was not opened'));
let close = () => {};

/** Opens the archive and builds the frontier and the sink over it; calls come only after this. */
function open(setup: CrawlStateSetup): CrawlStateReady {
  try {
    const db = openWriterConnection(setup.path);
    close = () => db.close();
    const answerCall = answerCalls(
      new SqliteFrontier(db, setup.crawl),
      new SqlitePageSink(db, setup.path, setup.runId, setup.limits),
      new SqliteControl(db),
    );
    answer = (call) => answerCall(call.method, call.args);
    return { ready: true };
  } catch (error) {
    // An archive this thread cannot open (gone, unreadable) cannot be written: every call says so.
    answer = () => Promise.reject(new ArchiveWriteError(setup.path, { cause: error }));
    return { ready: false, failure: crossed(error, true) };
  }
}

port.on('message', (call: CrawlStateOpen | CrawlStateCall | typeof CLOSE) => {
  if (call === CLOSE) {
    try {
      close();
    } finally {
      port.postMessage(CLOSED);
      port.close();
    }
    return;
  }
  if ('open' in call) return void port.postMessage(open(call.open));
  // SQLite's work is done within the call: answers go back in the order the calls came.
  answer(call).then(
    (value) => port.postMessage({ id: call.id, value } satisfies CrawlStateReply),
    (error: unknown) => port.postMessage({ id: call.id, failure: crossed(error) } satisfies CrawlStateReply),
  );
});
