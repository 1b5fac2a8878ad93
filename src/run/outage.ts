/** Waits between attempts: doubling from half a second, at most this long. */
const MAX_BACKOFF_MS = 15_000;
/** An outage longer than this ends the worker (its error is thrown). */
export const MAX_OUTAGE_MS = 10 * 60_000;

/**
 * The frontier's connection lost: the caller waits with backoff and tries
 * again, told once per outage; an outage past MAX_OUTAGE_MS gives up.
 */
export class Outage {
  private since: number | undefined;
  private backoffMs = 500;

  constructor(
    private readonly signal: AbortSignal,
    private readonly onOutage?: (error: unknown) => void,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Waits before the next attempt; throws `error` once the outage has lasted too long. */
  async wait(error: unknown): Promise<void> {
    const now = this.clock();
    if (this.since === undefined) {
      this.since = now;
      this.onOutage?.(error);
    } else if (now - this.since > MAX_OUTAGE_MS) {
      throw error;
    }
    const ms = this.backoffMs;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    await new Promise<void>((resolve) => {
      if (this.signal.aborted) return resolve();
      const timer = setTimeout(resolve, ms);
      this.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }

  /** A round went through: the next loss is a new outage. */
  over(): void {
    this.since = undefined;
    this.backoffMs = 500;
  }
}
