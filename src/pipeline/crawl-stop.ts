import { setMaxListeners } from 'node:events';

/**
 * How a crawl is stopped: first stop claiming and let requests in flight
 * finish; after the grace period, abort them (they go back to the queue).
 */
export class CrawlStop {
  private readonly controller = new AbortController();
  private graceTimer: NodeJS.Timeout | undefined;
  stopping = false;

  constructor() {
    // Every request in flight listens for the stop; there are as many as the concurrency.
    setMaxListeners(0, this.controller.signal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  request(graceMs: number): void {
    if (this.stopping) return;
    this.stopping = true;
    this.graceTimer = setTimeout(() => this.abort(), graceMs);
    this.graceTimer.unref();
  }

  abort(): void {
    this.stopping = true;
    clearTimeout(this.graceTimer);
    this.controller.abort();
  }

  dispose(): void {
    clearTimeout(this.graceTimer);
  }
}
