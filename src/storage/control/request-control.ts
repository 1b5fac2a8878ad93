import Database from 'better-sqlite3';
import { CrawliteError } from '../../crawlite-error.js';
import { explainOpenError } from '../archive/open-archive.js';
import { ArchiveBusyError } from '../archive/archive-errors.js';

export type ControlCommand = 'pause' | 'resume' | 'stop' | 'set' | 'exclude' | 'include';

export interface ControlRequest {
  command: ControlCommand;
  /** set: the JSON object of settings; exclude and include: the pattern; otherwise null. */
  argument: string | null;
  /** 'serve' (the live page) or 'control' (the command line). */
  requestedBy: 'serve' | 'control';
}

/** An archive whose schema predates the control tables: no crawl of it can be steered until this crawlite opens it. */
export class ControlUnsupportedError extends CrawliteError {
  constructor(path: string) {
    super(
      'CONTROL_UNSUPPORTED',
      `${path} was made by an older crawlite: resume its crawl with this one (which adds the tables to steer it) before sending it requests`,
    );
  }
}

/** One try waits this long for the crawl's write to end, and tries go on for this long in all. */
const BUSY_WAIT_MS = 100;
const BUSY_DEADLINE_MS = 10_000;

const busy = (error: unknown) =>
  typeof error === 'object' && error !== null && String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY');

/** One INSERT on a connection of its own, opened for it and closed after: the only write a process other than the crawl makes. */
function insertOnce(path: string, request: ControlRequest, requestedAt: string): number {
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name = 'control_request'").get() as {
      n: number;
    };
    if (tables.n === 0) throw new ControlUnsupportedError(path);
    const row = db
      .prepare('INSERT INTO control_request (requested_at, requested_by, command, argument) VALUES (?, ?, ?, ?) RETURNING id')
      .get(requestedAt, request.requestedBy, request.command, request.argument) as { id: number };
    return row.id;
  } finally {
    db.close();
  }
}

/**
 * Appends a request for the crawl's writer to apply (control_request), and returns its id. Never takes the
 * crawl's lock; waits between short tries while the crawl is writing, so the caller's event loop is never
 * held for more than one try, and gives up (ArchiveBusyError) only after BUSY_DEADLINE_MS.
 */
export async function requestControl(
  path: string,
  request: ControlRequest,
  deadlineMs = BUSY_DEADLINE_MS,
): Promise<{ id: number; requestedAt: string }> {
  const requestedAt = new Date().toISOString();
  const giveUp = Date.now() + deadlineMs;
  for (;;) {
    try {
      return { id: insertOnce(path, request, requestedAt), requestedAt };
    } catch (error) {
      if (!busy(error)) return explainOpenError(path, error);
      if (Date.now() >= giveUp) throw new ArchiveBusyError(path, `still being written after ${deadlineMs / 1000} s; try again`);
      await new Promise((resolve) => setTimeout(resolve, BUSY_WAIT_MS));
    }
  }
}
