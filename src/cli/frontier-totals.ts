import type { FrontierCounts } from '../library/frontier.js';
import { RECOUNT_AT_LEAST_MS, RECOUNT_COST_SHARE, type StateCounts } from './progress-display.js';

/**
 * A worker's progress line shows the whole crawl's counts, which live in
 * PostgreSQL: the line is drawn from the last count while the next is taken
 * in the background, no more often than it is cheap (the crawl's own recount bounds). A failed count (an
 * outage) keeps the last one; the worker says what went wrong itself.
 */
export class FrontierTotals {
  private value: StateCounts | undefined;
  private counting = false;
  private lastAt = -Infinity;
  private tookMs = 0;

  constructor(
    private readonly count: () => Promise<FrontierCounts | undefined>,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The last counts (leased URLs shown as in progress), undefined before the first; starts the next count when one is due. */
  current(): StateCounts | undefined {
    const now = this.clock();
    if (!this.counting && now - this.lastAt >= Math.max(RECOUNT_AT_LEAST_MS, this.tookMs * RECOUNT_COST_SHARE)) {
      this.counting = true;
      this.count()
        .then((counted) => {
          if (counted) this.value = { queued: counted.queued, fetching: counted.leased, done: counted.done, failed: counted.failed };
        })
        .catch(() => undefined)
        .finally(() => {
          this.counting = false;
          this.lastAt = this.clock();
          this.tookMs = this.lastAt - now;
        });
    }
    return this.value;
  }
}
