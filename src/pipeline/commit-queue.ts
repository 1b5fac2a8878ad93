import type { CommitResult, PageOutcome, PageSinkPort } from './ports.js';

/**
 * Group commit: pages finished in the same turn of the event loop are
 * committed in one transaction, at the end of that turn. Each page still
 * commits whole (page, links and state together) before its slot is freed,
 * since the slot waits for its promise; only the cost of a transaction is
 * shared. A crash loses at most the pages in flight, as before.
 */
export class CommitQueue {
  private pending: { outcome: PageOutcome; resolve: (result: CommitResult) => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly sink: PageSinkPort) {}

  commit(outcome: PageOutcome): Promise<CommitResult> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ outcome, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    let results: CommitResult[];
    try {
      results = await this.sink.commitAll(batch.map((entry) => entry.outcome));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, i) => entry.resolve(results[i]!));
  }
}
