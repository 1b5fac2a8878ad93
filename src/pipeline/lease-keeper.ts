import type { ClaimedUrl, FrontierPort, PageSinkPort } from './ports.js';

/** Renewals closer together than this are not asked for, however short the leases. */
const MIN_RENEW_DELAY_MS = 10;
/** A timer waits at most this long (Node fires a longer one at once); a lease due later is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Held {
  /** When to renew: halfway through what was left of the lease when it was had. */
  renewAt: number;
  /** From when it may be renewed with others, so renewals go in batches: a quarter of the way. */
  dueFrom: number;
}

/**
 * Keeps the leases of claims alive while they are held: claimed (ahead or in
 * flight) and not yet committed or given back. It stands between the crawl
 * and its ports, so every claim is seen coming (claimFrom, claimOwn) and
 * going (commit, release). A lease that never expires (SQLite's) is not
 * tracked at all. One renewal at a time, on a timer that does not keep the
 * process alive; a lease the frontier says is lost is let go, and its
 * commit is refused by the frontier.
 */
export class LeaseKeeper {
  readonly frontier: FrontierPort;
  readonly sink: PageSinkPort;
  private readonly held = new Map<ClaimedUrl, Held>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private renewing = false;
  private stopped = false;

  constructor(
    private readonly inner: FrontierPort,
    sink: PageSinkPort,
    private readonly clock: () => number = Date.now,
  ) {
    this.frontier = {
      claimFrom: async (origin, limit, only) => this.holdAll(await inner.claimFrom(origin, limit, only)),
      queuedOrigins: () => inner.queuedOrigins(),
      release: (claim) => {
        this.held.delete(claim);
        return inner.release(claim);
      },
      claimOwn: async (url) => {
        const claim = await inner.claimOwn(url);
        if (claim) this.hold(claim, this.clock());
        return claim;
      },
      renew: (claims) => inner.renew(claims),
      storedResponse: (key) => inner.storedResponse(key),
      pagesFetched: () => inner.pagesFetched(),
      requeueRobotsUnavailable: (origin) => inner.requeueRobotsUnavailable(origin),
      sent: (claim) => inner.sent(claim),
      paceRetry: (claim, signal) => inner.paceRetry(claim, signal),
    };
    const commitAll: PageSinkPort['commitAll'] = async (outcomes) => {
      try {
        return await sink.commitAll(outcomes);
      } finally {
        for (const outcome of outcomes) this.held.delete(outcome.claim);
      }
    };
    this.sink = { commitAll, commit: async (outcome) => (await commitAll([outcome]))[0]! };
  }

  /** How many claims with expiring leases are held now. */
  get holding(): number {
    return this.held.size;
  }

  /** The crawl ended: no more renewals. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.held.clear();
  }

  private holdAll(claims: ClaimedUrl[]): ClaimedUrl[] {
    const now = this.clock();
    for (const claim of claims) this.hold(claim, now);
    return claims;
  }

  private hold(claim: ClaimedUrl, now: number): void {
    if (this.stopped || !Number.isFinite(claim.lease.expiresAt)) return;
    const left = claim.lease.expiresAt - now;
    const held = { renewAt: now + Math.max(MIN_RENEW_DELAY_MS, left / 2), dueFrom: now + left / 4 };
    this.held.set(claim, held);
    this.schedule(held.renewAt);
  }

  private schedule(at: number): void {
    if (this.stopped || this.renewing || (this.timer !== undefined && this.timerAt <= at)) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.renew(), Math.min(MAX_TIMER_MS, Math.max(0, at - this.clock())));
    this.timer.unref();
  }

  private renew(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.stopped) return;
    const now = this.clock();
    const due = [...this.held].filter(([, held]) => held.dueFrom <= now).map(([claim]) => claim);
    if (due.length === 0) return this.reschedule();
    this.renewing = true;
    this.inner.renew(due).then(
      (leases) => {
        const at = this.clock();
        due.forEach((claim, i) => {
          if (!this.held.has(claim)) return;
          const lease = leases[i];
          if (!lease) {
            // Lost: the frontier refuses its commit, and the pipeline reports it.
            this.held.delete(claim);
            return;
          }
          claim.lease = lease;
          this.hold(claim, at);
        });
        this.settle();
      },
      () => {
        // Asked again halfway through what is left; a lease that runs out meanwhile is refused at commit.
        const at = this.clock();
        for (const claim of due) {
          if (this.held.has(claim) && claim.lease.expiresAt <= at) this.held.delete(claim);
          else if (this.held.has(claim)) this.hold(claim, at);
        }
        this.settle();
      },
    );
  }

  private settle(): void {
    this.renewing = false;
    this.reschedule();
  }

  private reschedule(): void {
    let at = Infinity;
    for (const held of this.held.values()) at = Math.min(at, held.renewAt);
    if (at < Infinity) this.schedule(at);
  }
}
