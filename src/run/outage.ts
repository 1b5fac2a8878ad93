/** Waits between attempts: doubling from half a second, at most this long. */
const MAX_BACKOFF_MS = 15_000;
/** An outage longer than this ends the worker (its error is thrown). */
export const MAX_OUTAGE_MS = 10 * 60_000;

/**
 * An outage that starts this soon after the last one told is not told again: a full server lets a round
 * through on the connection a worker holds, then refuses the next one, and each such flap would be told.
 */
export const TELL_AGAIN_AFTER_MS = 60_000;

/**
 * The frontier's connection lost: the caller waits with backoff and tries
 * again, told once per outage (and at most once a minute); an outage past
 * MAX_OUTAGE_MS gives up.
 */
export class Outage {
  private since: number | undefined;
  private backoffMs = 500;
  private toldAt = -Infinity;

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
      if (now - this.toldAt >= TELL_AGAIN_AFTER_MS) {
        this.toldAt = now;
        this.onOutage?.(error);
      }
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
