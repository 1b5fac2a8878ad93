import type { CommitResult, PageOutcome, PageSinkPort } from './ports.js';

/**
 * Group commit: pages finished in the same turn of the event loop are
 * committed in one transaction, at the end of that turn. Each page still
 * commits whole (page, links and state together); only the cost of a
 * transaction is shared. A slot starts its next request while its page
 * waits here, so a crash loses at most the pages not yet committed: never
 * more than twice the concurrency (see claimFrontier). Waiting longer to
 * commit larger batches measured no faster (setImmediate vs 10 ms windows).
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
