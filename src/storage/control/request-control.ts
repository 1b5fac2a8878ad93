import type { ControlRequest } from '../../pipeline/control-request.js';
import { ArchiveBusyError } from '../archive/archive-errors.js';
import { ControlClient } from './control-client.js';

/** One try waits this long for the crawl's write to end, and tries go on for this long in all. */
const BUSY_WAIT_MS = 100;
const BUSY_DEADLINE_MS = 10_000;

const busy = (error: unknown) =>
  error instanceof ArchiveBusyError ||
  (typeof error === 'object' && error !== null && String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY'));

/**
 * Appends a request (checked by the caller) for the crawl's writer to apply, on a connection opened for it
 * and closed after, and returns its id. For a server: each try waits at most BUSY_WAIT_MS for the crawl's
 * write to end, so its event loop is never held longer; tries go on between turns of it, and give up
 * (ArchiveBusyError) only after `deadlineMs`. Never takes the crawl's lock.
 */
export async function requestControl(
  path: string,
  request: ControlRequest,
  by: 'serve' | 'control',
  deadlineMs = BUSY_DEADLINE_MS,
): Promise<{ id: number; requestedAt: string }> {
  const giveUp = Date.now() + deadlineMs;
  for (;;) {
    const now = new Date();
    try {
      const client = ControlClient.open(path, { busyTimeoutMs: BUSY_WAIT_MS });
      try {
        return { id: client.request(request, by, now), requestedAt: now.toISOString() };
      } finally {
        client.close();
      }
    } catch (error) {
      if (!busy(error)) throw error;
      if (Date.now() >= giveUp) throw new ArchiveBusyError(path, `still being written after ${deadlineMs / 1000} s; try again`);
      await new Promise((resolve) => setTimeout(resolve, BUSY_WAIT_MS));
    }
  }
}
