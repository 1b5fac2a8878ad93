import { createLogUpdate } from 'log-update';
import type { FetchReport } from '../pipeline/crawl-item.js';
import { formatBytes } from './format-report.js';

export type ProgressMode = 'live' | 'plain' | 'none';

export interface StateCounts {
  queued: number;
  fetching: number;
  done: number;
  failed: number;
}

/** Where the live status line is drawn: a terminal's stream, or a stand-in in tests. */
export interface StatusStream {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

const LIVE_EVERY_MS = 250;
const PLAIN_EVERY_MS = 10_000;

/**
 * The crawl's progress: on a terminal a live status line (log-update redraws
 * it in place), elsewhere one plain line every 10 s, with -q nothing. Other
 * lines printed while the status is live go above it.
 */
export class ProgressDisplay {
  private readonly started: number;
  private fetched = 0;
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly live: ReturnType<typeof createLogUpdate> | undefined;

  constructor(
    private readonly mode: ProgressMode,
    private readonly stream: StatusStream,
    private readonly counts: () => StateCounts,
    private readonly clock: () => number = Date.now,
  ) {
    this.started = clock();
    if (mode === 'live') this.live = createLogUpdate(stream as NodeJS.WriteStream, { showCursor: true });
  }

  start(): void {
    if (this.mode === 'none') return;
    const every = this.mode === 'live' ? LIVE_EVERY_MS : PLAIN_EVERY_MS;
    this.timer = setInterval(() => this.show(), every);
    this.timer.unref();
  }

  count(report: FetchReport): void {
    this.fetched += 1;
    this.bytes += report.size ?? 0;
  }

  /** Prints a line (a fetch log, a warning) without breaking the live status. */
  line(text: string): void {
    this.live?.clear();
    this.stream.write(`${text}\n`);
    if (this.live) this.show();
  }

  status(): string {
    const seconds = Math.max(0.001, (this.clock() - this.started) / 1000);
    const { queued, fetching, done, failed } = this.counts();
    return (
      `${done} done, ${queued} queued, ${fetching} in flight, ${failed} failed | ` +
      `${this.fetched} fetched, ${(this.fetched / seconds).toFixed(1)} pages/s, ${formatBytes(this.bytes)} | ${seconds.toFixed(0)} s`
    );
  }

  private show(): void {
    if (this.live) this.live(this.status());
    else this.stream.write(`${this.status()}\n`);
  }

  stop(): void {
    clearInterval(this.timer);
    if (this.live) {
      this.live.clear();
      this.live.done();
    }
  }
}
