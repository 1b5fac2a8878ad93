import type { CommitResult, PageOutcome, PageSinkPort } from './ports.js';

interface Pending {
  outcome: PageOutcome;
  resolve: (result: CommitResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: pages finished in the same turn of the event loop are
 * committed in one transaction, at the end of that turn; while a transaction
 * is under way (a sink on another thread answers later), the pages that
 * finish meanwhile wait and go together in the next. Each page still commits
 * whole (page, links and state together); only the cost of a transaction is
 * shared. A slot starts its next request while its page waits here, so a
 * crash loses at most the pages not yet committed: never more than twice
 * the concurrency (see claimFrontier). Waiting longer to commit larger
 * batches measured no faster (setImmediate vs 10 ms windows).
 */
export class CommitQueue {
  private pending: Pending[] = [];
  private scheduled = false;
  private committing = false;

  constructor(private readonly sink: PageSinkPort) {}

  commit(outcome: PageOutcome): Promise<CommitResult> {
    return new Promise((resolve, reject) => {
      this.pending.push({ outcome, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.committing || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.committing = true;
    try {
      const results = await this.sink.commitAll(batch.map((entry) => entry.outcome));
      batch.forEach((entry, i) => entry.resolve(results[i]!));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      this.committing = false;
      this.schedule();
    }
  }
}
