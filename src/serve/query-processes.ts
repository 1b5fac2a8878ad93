import type { RunningQuery } from '../storage/query/index.js';
import { SearchSlots } from './search-slots.js';

/**
 * Query processes (searches, diffs) a few at a time, more queued behind them and the rest refused
 * (SearchSlots); all running ones are killed by close(), and none starts after.
 */
export class QueryProcesses {
  private readonly slots: SearchSlots;
  private readonly running = new Set<RunningQuery>();
  private closed = false;

  constructor(atOnce: number, waiting: number) {
    this.slots = new SearchSlots(atOnce, waiting);
  }

  /** Runs the process `start` starts in its turn; resolves with `answer()` once it finished, or `none` if closed meanwhile. */
  async run<T>(start: () => RunningQuery, answer: () => T, none: T): Promise<T> {
    const free = await this.slots.take();
    if (this.closed) {
      free();
      return none;
    }
    let query: RunningQuery;
    try {
      query = start();
    } catch (error) {
      free();
      throw error;
    }
    // The slot is free once the process is gone, not when its answer is: a killed one may take a moment to end.
    void query.exited.then(free);
    this.running.add(query);
    try {
      await query.finished;
    } finally {
      this.running.delete(query);
    }
    return answer();
  }

  close(): void {
    this.closed = true;
    for (const query of this.running) query.stop();
  }
}
