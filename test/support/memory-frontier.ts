import { randomUUID } from 'node:crypto';
import { takenOverAsOwn } from '../../src/pipeline/frontier-rules.js';
import type { ClaimedUrl, CommitResult, FrontierPort, Lease, PageOutcome, PageSinkPort, UrlState } from '../../src/pipeline/ports.js';

/** A URL as the frontier holds it: what a claim carries, its state, and its lease while one is held. */
interface Entry extends Omit<ClaimedUrl, 'lease'> {
  state: UrlState;
  /** The latest claim's lease: kept when it is given back (release), so its commit is still taken until another claim takes the URL. */
  lease?: Lease;
}

type NewUrl = Pick<ClaimedUrl, 'url' | 'key' | 'origin'> & Partial<Pick<ClaimedUrl, 'kind' | 'depth' | 'redirectHops'>>;

/**
 * A frontier and page store in memory whose leases expire after `leaseMs`,
 * like one shared by several workers: a URL whose lease ran out (or was
 * revoked) is handed out again, and a commit under a lost lease is refused.
 * A lease that ran out is kept until another claim takes the URL, as
 * PostgreSQL's is.
 */
export class MemoryFrontier implements FrontierPort, PageSinkPort {
  readonly entries = new Map<string, Entry>();
  private readonly byId = new Map<number, Entry>();
  /** Calls to renew, and claims renewed in all. */
  renewCalls = 0;
  renewed = 0;
  /** Keys whose commit was refused because the lease was lost. */
  readonly refused: string[] = [];

  constructor(
    private readonly leaseMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  add(url: NewUrl): Entry {
    const entry: Entry = { kind: 'page', depth: 0, redirectHops: 0, ...url, id: this.byId.size + 1, tries: 0, state: 'queued' };
    this.entries.set(entry.key, entry);
    this.byId.set(entry.id, entry);
    return entry;
  }

  /** Takes a URL away from whoever holds it, as when its lease runs out and another claim takes it. */
  revoke(key: string): void {
    const entry = this.entries.get(key);
    if (entry?.state !== 'fetching') return;
    entry.state = 'queued';
    delete entry.lease;
  }

  stateOf(key: string): UrlState | undefined {
    return this.entries.get(key)?.state;
  }

  /** Whether `lease` is the URL's latest claim, in flight (its lease run out or not: no other claim took it). */
  private holds(entry: Entry | undefined, lease: Lease): entry is Entry {
    return entry?.state === 'fetching' && entry.lease?.token === lease.token;
  }

  /** Queued, or held by a claim whose lease ran out. */
  private claimable(entry: Entry): boolean {
    return entry.state === 'queued' || (entry.state === 'fetching' && entry.lease !== undefined && entry.lease.expiresAt < this.clock());
  }

  private claim(entry: Entry): ClaimedUrl {
    entry.state = 'fetching';
    entry.lease = { token: randomUUID(), expiresAt: this.clock() + this.leaseMs };
    const { id, url, key, origin, kind, depth, redirectHops, tries } = entry;
    return { id, url, key, origin, kind, depth, redirectHops, tries, lease: { ...entry.lease } };
  }

  async claimFrom(origin: string, limit: number, only?: 'requisite'): Promise<ClaimedUrl[]> {
    const queued = [...this.entries.values()].filter(
      (entry) => this.claimable(entry) && entry.origin === origin && (!only || entry.kind === only),
    );
    return queued.slice(0, limit).map((entry) => this.claim(entry));
  }

  async queuedOrigins(): Promise<string[]> {
    return [...new Set([...this.entries.values()].filter((entry) => this.claimable(entry)).map((entry) => entry.origin))];
  }

  async release(claim: ClaimedUrl): Promise<void> {
    const entry = this.byId.get(claim.id);
    if (this.holds(entry, claim.lease)) entry.state = 'queued';
  }

  async claimOwn(url: Pick<ClaimedUrl, 'url' | 'key' | 'origin' | 'kind' | 'depth' | 'redirectHops'>): Promise<ClaimedUrl | undefined> {
    const entry = this.entries.get(url.key) ?? this.add(url);
    if (entry.kind !== url.kind && !takenOverAsOwn(url.key)) return undefined;
    if (entry.state === 'done' || (entry.state === 'fetching' && !this.claimable(entry))) return undefined;
    entry.kind = url.kind;
    return this.claim(entry);
  }

  async renew(claims: readonly ClaimedUrl[]): Promise<(Lease | undefined)[]> {
    this.renewCalls += 1;
    return claims.map((claim) => {
      const entry = this.byId.get(claim.id);
      if (!this.holds(entry, claim.lease)) return undefined;
      this.renewed += 1;
      entry.lease = { token: claim.lease.token, expiresAt: this.clock() + this.leaseMs };
      return { ...entry.lease };
    });
  }

  async storedResponse(): Promise<undefined> {
    return undefined;
  }

  async pagesFetched(): Promise<number> {
    return [...this.entries.values()].filter((entry) => entry.kind === 'page' && (entry.state === 'done' || entry.state === 'failed'))
      .length;
  }

  async requeueRobotsUnavailable(): Promise<number> {
    return 0;
  }

  /** A stand-in for leases, not for pacing: like a single-process frontier, it has none to share. */
  async sent(): Promise<void> {}

  async paceRetry(): Promise<void> {}

  async commit(outcome: PageOutcome): Promise<CommitResult> {
    return (await this.commitAll([outcome]))[0]!;
  }

  async commitAll(outcomes: PageOutcome[]): Promise<CommitResult[]> {
    return outcomes.map((outcome) => {
      const entry = this.byId.get(outcome.claim.id);
      // A claim given back still holds the URL until another claim takes it.
      const givenBack = entry?.state === 'queued' && entry.lease?.token === outcome.claim.lease.token;
      if (!entry || !(this.holds(entry, outcome.claim.lease) || givenBack)) {
        this.refused.push(outcome.claim.key);
        return { newUrls: 0, leaseLost: true };
      }
      entry.state = outcome.state;
      entry.tries = outcome.tries;
      delete entry.lease;
      let newUrls = 0;
      for (const found of outcome.discovered) {
        if (found.skip || found.linkOnly || this.entries.has(found.key)) continue;
        this.add({
          url: found.url,
          key: found.key,
          origin: found.origin,
          kind: found.target,
          depth: found.depth,
          redirectHops: found.redirectHops,
        });
        newUrls += 1;
      }
      return { newUrls };
    });
  }
}
