import { CrawliteError } from '../crawlite-error.js';

/** Every search slot is taken and the queue is full: the UI answers 503 at once. */
export class SearchBusyError extends CrawliteError {
  constructor(running: number, waiting: number) {
    super('SEARCH_BUSY', `too many searches at once (${running} running, ${waiting} waiting): try again in a moment`);
  }
}

/**
 * At most `running` searches at once and `waiting` queued behind them, first come
 * first served: a page that sends searches by the hundred (an <img> each) starts
 * no more processes than that, and the rest are refused.
 */
export class SearchSlots {
  private taken = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /** Resolves, once a slot is free, with the function that frees it; throws SearchBusyError when the queue is full. */
  async take(): Promise<() => void> {
    if (this.taken < this.running) this.taken += 1;
    else if (this.queue.length < this.waiting) await new Promise<void>((resolve) => this.queue.push(resolve));
    else throw new SearchBusyError(this.running, this.waiting);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      // The slot passes straight to the next in line, so the count never dips while some wait.
      const next = this.queue.shift();
      if (next) next();
      else this.taken -= 1;
    };
  }
}
