import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Crawl } from '../pipeline/crawl.js';
import type { CrawlControls, LiveSettings } from '../pipeline/crawl-controls.js';
import type { AppliedControl, ControlPort, LiveState } from '../pipeline/ports.js';
import type { RunNotice } from './run-events.js';

/** How often the crawl looks for requests from other processes. */
export const CONTROL_POLL_MS = 500;
/** Polls between writes of the live row (about once a second). */
const LIVE_EVERY = 2;
/** Polls between checks of the free disk (about every 5 s). */
const DISK_EVERY = 10;

export interface Steered {
  control: ControlPort;
  controls: CrawlControls;
  /** The crawl running now (a worker runs one after another). */
  running: Pick<Crawl, 'inFlight' | 'queued'>;
  /** Stops the crawl as Ctrl-C does. */
  stop(): void;
  stopping(): boolean;
  dbPath: string;
  notify(notice: RunNotice): void;
}

/** Free bytes for an unprivileged writer on the file system holding `path`. */
export async function freeBytes(path: string): Promise<number> {
  const stats = await statfs(dirname(resolve(path)));
  return stats.bavail * stats.bsize;
}

const SETTING_WORDS = { concurrency: 'concurrency', perHost: 'per-host', delayMs: 'delay', minFreeDisk: 'min-free-disk' } as const;

/**
 * Steers the running crawl from its archive: every half second it has the requests other processes
 * appended applied (on the storage thread) and follows them; about once a second it writes its live row;
 * every few seconds it checks the free disk and pauses itself under --min-free-disk. Its timer keeps
 * the process alive while the crawl is paused. `close` ends it once the crawl is over.
 */
export function steerCrawl(steered: Steered): { close(): Promise<void> } {
  const { control, controls, running, notify } = steered;
  const startedAt = new Date().toISOString();
  let ticks = 0;
  let busy: Promise<void> | undefined;
  let closed = false;
  /** A `resume` of a disk pause holds until free space has been back over the limit once. */
  let diskOverride = false;

  const live = (): LiveState => ({
    pid: process.pid,
    state: steered.stopping() ? 'stopping' : controls.paused ? 'paused' : 'running',
    pausedBy: controls.paused ?? null,
    inFlight: running.inFlight(),
    concurrency: controls.concurrency,
    perHost: controls.perHost,
    delayMs: controls.delayMs ?? null,
    startedAt,
  });

  const checkDisk = async () => {
    const min = controls.minFreeDisk;
    if (min <= 0 && controls.paused === 'disk') return resume();
    if (min <= 0) return;
    const free = await freeBytes(steered.dbPath);
    if (free >= min) {
      diskOverride = false;
      if (controls.paused === 'disk') resume();
      return;
    }
    if (controls.paused === undefined && !diskOverride) {
      controls.pause('disk');
      notify({ kind: 'paused', by: 'disk', free, min });
    }
  };

  const resume = () => {
    if (controls.paused === undefined) return;
    controls.resume();
    notify({ kind: 'resumed' });
  };

  const follow = async (applied: AppliedControl) => {
    switch (applied.command) {
      case 'pause':
        if (controls.paused === applied.by) return;
        controls.pause(applied.by);
        return notify({ kind: 'paused', by: applied.by });
      case 'resume':
        if (controls.paused === 'disk') diskOverride = true;
        return resume();
      case 'stop':
        notify({ kind: 'controlled', what: 'stop' });
        return steered.stop();
      case 'set': {
        const settings: Partial<LiveSettings> = { ...applied.settings };
        controls.set(settings);
        const words = Object.entries(applied.settings).map(
          ([key, value]) => `${SETTING_WORDS[key as keyof typeof SETTING_WORDS]} ${value}`,
        );
        notify({ kind: 'controlled', what: `set ${words.join(', ')}` });
        // A lower limit may let a crawl paused for want of disk go on at once.
        if (applied.settings.minFreeDisk !== undefined && controls.paused === 'disk') await checkDisk();
        return;
      }
      case 'exclude':
        controls.addExclusion(applied.pattern);
        return notify({ kind: 'controlled', what: `exclude ${applied.pattern}` });
      case 'include':
        controls.removeExclusion(applied.pattern);
        if (applied.requeued.length > 0) running.queued(applied.requeued);
        return notify({ kind: 'controlled', what: `include ${applied.pattern}` });
    }
  };

  const tick = async () => {
    ticks += 1;
    // An exclusion is followed before it is applied: once the archive says it applied, nothing matching it starts.
    const waiting = await control.waiting();
    for (const pattern of waiting.exclusions) {
      try {
        controls.addExclusion(pattern);
      } catch {
        // Not a regular expression: the request is refused as it is applied.
      }
    }
    for (const applied of await control.applyWaiting(waiting.upTo)) await follow(applied);
    if (ticks % DISK_EVERY === 1) await checkDisk();
    if (ticks % LIVE_EVERY === 1) await control.writeLive(live());
  };

  const timer = setInterval(() => {
    if (busy || closed) return;
    // A tick that fails (the archive busy, the thread gone) is tried again at the next: the crawl meets any real error itself.
    busy = tick()
      .catch(() => undefined)
      .finally(() => (busy = undefined));
  }, CONTROL_POLL_MS);
  // The first look at once: a crawl started paused says so in its live row without waiting.
  busy = control
    .writeLive(live())
    .then(checkDisk)
    .catch(() => undefined)
    .finally(() => (busy = undefined));

  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await busy;
    },
  };
}
