import { setMaxListeners } from 'node:events';

/**
 * How a crawl is stopped: first stop claiming and let requests in flight
 * finish; after the grace period, abort them (they go back to the queue).
 */
export class CrawlStop {
  private readonly controller = new AbortController();
  private readonly requested = new AbortController();
  private graceTimer: NodeJS.Timeout | undefined;
  stopping = false;

  constructor() {
    // Every request in flight listens for the stop; there are as many as the concurrency.
    setMaxListeners(0, this.controller.signal);
  }

  /** Aborted when requests in flight must end: after the grace period, or at once. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborted as soon as a stop is asked for. */
  get stopRequested(): AbortSignal {
    return this.requested.signal;
  }

  request(graceMs: number): void {
    if (this.stopping) return;
    this.stopping = true;
    this.requested.abort();
    this.graceTimer = setTimeout(() => this.abort(), graceMs);
    this.graceTimer.unref();
  }

  abort(): void {
    this.stopping = true;
    this.requested.abort();
    clearTimeout(this.graceTimer);
    this.controller.abort();
  }

  dispose(): void {
    clearTimeout(this.graceTimer);
  }
}
