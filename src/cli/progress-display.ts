import type { createLogUpdate } from 'log-update';
import type { FetchReport } from '../library/index.js';
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

/**
 * How progress is shown: live on a terminal, plain lines elsewhere, and plain lines too on a terminal that
 * reports 0 columns (a serial console, some CI terminals), where a live line would be drawn 0 wide: nothing.
 */
export function progressMode(quiet: boolean, isTTY: boolean, stream: StatusStream | undefined): ProgressMode {
  if (quiet) return 'none';
  return isTTY && stream && stream.columns !== 0 ? 'live' : 'plain';
}

const LIVE_EVERY_MS = 250;
/** Counting URLs by state reads an index as long as the frontier: on a big archive it is not free. */
export const RECOUNT_AT_LEAST_MS = 1_000;
/** ...and it takes at most 1/20 of the time, whatever the archive's size. */
export const RECOUNT_COST_SHARE = 20;
const PLAIN_EVERY_MS = 10_000;

/** This run's finished fetches, by outcome. */
interface RunCounts {
  done: number;
  failed: number;
}

/**
 * The crawl's progress: on a terminal a live status line (log-update redraws
 * it in place), elsewhere one plain line every 10 s, with -q nothing. Other
 * lines printed while the status is live go above it. "in flight" is
 * requests on the wire, not URLs claimed; "done" and "failed" are the last
 * count of the archive plus the fetches reported since, so they move with
 * "fetched" instead of waiting for the next count.
 */
export class ProgressDisplay {
  private started: number;
  private readonly run: RunCounts = { done: 0, failed: 0 };
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private counted: { at: number; took: number; value: StateCounts | undefined; run: RunCounts } | undefined;
  private live: ReturnType<typeof createLogUpdate> | undefined;
  /** Set while the crawl is paused: the status line leads with it. */
  paused: string | undefined;

  /** A display whose live mode has its terminal writer loaded: log-update is only worth its start-up cost on a terminal. */
  static async create(...args: ConstructorParameters<typeof ProgressDisplay>): Promise<ProgressDisplay> {
    const display = new ProgressDisplay(...args);
    if (display.mode === 'live') {
      const { createLogUpdate } = await import('log-update');
      display.live = createLogUpdate(display.stream as NodeJS.WriteStream, { showCursor: true });
    }
    return display;
  }

  constructor(
    private readonly mode: ProgressMode,
    private readonly stream: StatusStream,
    /** Undefined while there is nothing to count yet (a worker not yet connected): nothing is drawn then. */
    private readonly counts: () => StateCounts | undefined,
    /** Requests in flight right now. */
    private readonly inFlight: () => number,
    private readonly clock: () => number = Date.now,
  ) {
    this.started = clock();
  }

  start(): void {
    // Made before the archive is opened, so nothing is missed; the rate counts from the first fetch's start.
    this.started = this.clock();
    if (this.mode === 'none') return;
    const every = this.mode === 'live' ? LIVE_EVERY_MS : PLAIN_EVERY_MS;
    this.timer = setInterval(() => this.show(), every);
    this.timer.unref();
  }

  /** A fetch finished; a URL robots.txt refused was never requested and is not counted. */
  count(report: FetchReport): void {
    if (report.state !== 'done' && report.state !== 'failed') return;
    this.run[report.state] += 1;
    this.bytes += report.size ?? 0;
  }

  /** Prints a line (a fetch log, a warning) without breaking the live status. */
  line(text: string): void {
    this.live?.clear();
    this.stream.write(`${text}\n`);
    if (this.live) this.show();
  }

  status(): string | undefined {
    const seconds = Math.max(0.001, (this.clock() - this.started) / 1000);
    const { value, run } = this.stateCounts();
    if (!value) return undefined;
    const done = value.done + this.run.done - run.done;
    const failed = value.failed + this.run.failed - run.failed;
    const fetched = this.run.done + this.run.failed;
    return (
      (this.paused ? `${this.paused} | ` : '') +
      `${done} done, ${value.queued} queued, ${this.inFlight()} in flight, ${failed} failed | ` +
      `${fetched} fetched, ${(fetched / seconds).toFixed(1)}/s, ${formatBytes(this.bytes)} | ${seconds.toFixed(0)} s`
    );
  }

  /** The live line redraws every 250 ms with the last counts; they are taken again only as often as they are cheap. */
  private stateCounts(): { value: StateCounts | undefined; run: RunCounts } {
    const now = this.clock();
    const last = this.counted;
    if (last && now - last.at < Math.max(RECOUNT_AT_LEAST_MS, last.took * RECOUNT_COST_SHARE)) return last;
    // Each report is committed before it is counted, so the archive's count already holds every fetch counted so far.
    const run = { ...this.run };
    const value = this.counts();
    // Nothing counted yet: asked again at the next redraw.
    if (!value) return { value, run };
    this.counted = { at: now, took: this.clock() - now, value, run };
    return this.counted;
  }
  private show(): void {
    const status = this.status();
    if (status === undefined) return;
    if (this.live) this.live(status);
    else this.stream.write(`${status}\n`);
  }

  stop(): void {
    clearInterval(this.timer);
    if (this.live) {
      this.live.clear();
      this.live.done();
    }
  }
}
