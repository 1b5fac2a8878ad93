import type { ClaimedUrl, FrontierPort } from '../ports.js';
import type { RobotsBook } from '../robots/robots-book.js';

/** Work for one request slot: a URL from the frontier, or an origin's robots.txt. */
export type Task = { type: 'url'; claim: ClaimedUrl } | { type: 'robots'; origin: string };

/**
 * A task to start now, the time (ms) at which one may be ready, `pending`:
 * nothing to start until a claim under way answers (the source then calls
 * its listener), or `empty`: nothing to start, nothing under way.
 */
export type NextTask = Task | { wakeAt: number } | 'pending' | 'empty';

export interface TaskSource {
  next(now: number): NextTask;
  /** The task's requests are over: its origin may start another (its page may still be committing). */
  finished(task: Task): void;
  /** Called each time a claim under way answers: `next` may have a task now. */
  onSettled(listener: () => void): void;
  /** The crawl is over: waits for claims under way, then gives back whatever was taken and not started. */
  close(): Promise<void>;
}

/** Read at every decision: a crawl steered while it runs changes perHost and delayMs through getters. */
export interface SchedulerSettings {
  /** Requests in flight at most per origin. */
  readonly perHost: number;
  /** Fixed gap between request starts on an origin; overrides Crawl-delay. */
  readonly delayMs?: number | undefined;
  /** Requests for URLs of kind `page` at most over the archive's life; requisites, sitemaps and robots.txt are not counted. */
  maxPages?: number;
}

/**
 * URLs claimed from the frontier per origin in one write, ahead of the slots
 * that will fetch them: as many as the origin's slots, within these bounds.
 * Claiming is a transaction of its own, so one per URL cost as much as
 * parsing; a few ahead costs nothing: a crash leaves them `fetching`, which
 * resume queues again, and they were never requested. The next claim is
 * asked when half of the last is left, so a slot that frees never waits for
 * the frontier's answer behind its commits.
 */
const CLAIM_AHEAD_MIN = 8;
const CLAIM_AHEAD_MAX = 32;

interface Host {
  inFlight: number;
  /** Claimed from the frontier, not started yet. */
  ahead: ClaimedUrl[];
  /** A claim for this origin is under way: one at a time per origin. */
  claiming: boolean;
  /** Counts noteWork calls, so a claim that found nothing clears `hasWork` only if no work was noted meanwhile. */
  workNoted: number;
  lastStart: number;
  pausedUntil: number;
  /** Whether the origin may have queued URLs; a hint, cleared when a claim finds none. */
  hasWork: boolean;
}

const taskOrigin = (task: Task) => (task.type === 'url' ? task.claim.origin : task.origin);

/**
 * Decides which origin's URL starts next: round-robin over origins with work,
 * each held to its in-flight cap, its gap between request starts (--delay or
 * Crawl-delay) and any pause a server asked for, with robots.txt fetched
 * first. State is per origin, never per URL.
 *
 * The frontier answers asynchronously: `next` stays synchronous over what
 * each origin has claimed ahead, and an origin that has run out gets one
 * claim under way at a time; its answer wakes the caller (`onSettled`). The
 * first call asks the frontier for the origins with work and the pages
 * fetched in earlier runs.
 */
export class HostScheduler implements TaskSource {
  private readonly hosts = new Map<string, Host>();
  private cursor = 0;
  private pagesStarted = 0;
  private loaded: 'no' | 'loading' | 'yes' = 'no';
  /** Frontier calls under way (claims, releases, the first lookup). */
  private readonly work = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;
  private listener: (() => void) | undefined;

  constructor(
    private readonly frontier: FrontierPort,
    private readonly robots: RobotsBook,
    private readonly settings: SchedulerSettings,
  ) {}

  private get claimAhead(): number {
    return Math.min(CLAIM_AHEAD_MAX, Math.max(CLAIM_AHEAD_MIN, this.settings.perHost));
  }

  /** Whether a frontier call is under way (a claim, a release, the first lookup). */
  get waitingOnFrontier(): boolean {
    return this.loaded !== 'yes' || this.work.size > 0;
  }

  onSettled(listener: () => void): void {
    this.listener = listener;
  }

  /** Runs a frontier call in the background; a failure is thrown by the next `next` (or `close`). */
  private track<T>(call: Promise<T>, settle: (value: T) => void): void {
    const done = (async () => {
      try {
        settle(await call);
      } catch (error) {
        this.failure ??= { error };
      }
    })();
    this.work.add(done);
    void done.then(() => {
      this.work.delete(done);
      this.listener?.();
    });
  }

  private load(): void {
    this.loaded = 'loading';
    const lookup = Promise.all([this.frontier.pagesFetched(), this.frontier.queuedOrigins()]);
    this.track(lookup, ([pages, origins]) => {
      this.pagesStarted = pages;
      this.noteWork(origins);
      this.loaded = 'yes';
    });
  }

  /** Claims ahead for an origin that has run out; past --max-pages, requisites only. */
  private claim(origin: string, host: Host): void {
    if (host.claiming) return;
    host.claiming = true;
    const noted = host.workNoted;
    const claimed = this.frontier.claimFrom(origin, this.claimAhead, this.limitReached ? 'requisite' : undefined);
    this.track(claimed, (claims) => {
      host.claiming = false;
      host.ahead.push(...claims);
      if (claims.length === 0 && host.workNoted === noted) host.hasWork = false;
    });
  }

  private release(claims: ClaimedUrl[]): void {
    for (const claim of claims) this.track(this.frontier.release(claim), () => undefined);
  }

  private host(origin: string): Host {
    let host = this.hosts.get(origin);
    if (!host) {
      host = { inFlight: 0, ahead: [], claiming: false, workNoted: 0, lastStart: -Infinity, pausedUntil: 0, hasWork: false };
      this.hosts.set(origin, host);
    }
    return host;
  }

  private gap(origin: string): number {
    return this.settings.delayMs ?? this.robots.rules(origin)?.crawlDelayMs ?? 0;
  }

  /** --max-pages was reached: no more pages are claimed, only requisites. */
  get limitReached(): boolean {
    return this.settings.maxPages !== undefined && this.pagesStarted >= this.settings.maxPages;
  }

  /** Past --max-pages only requisites start: they are the price of pages already fetched; pages claimed ahead go back. */
  private keepRequisitesOnly(host: Host): void {
    if (!this.limitReached || host.ahead.every((ahead) => ahead.kind === 'requisite')) return;
    this.release(host.ahead.filter((ahead) => ahead.kind !== 'requisite'));
    host.ahead = host.ahead.filter((ahead) => ahead.kind === 'requisite');
  }

  next(now: number): NextTask {
    if (this.failure) throw this.failure.error;
    if (this.loaded !== 'yes') {
      if (this.loaded === 'no') this.load();
      return 'pending';
    }
    const origins = [...this.hosts.keys()];
    let wakeAt = Infinity;
    for (let i = 0; i < origins.length; i += 1) {
      const origin = origins[(this.cursor + i) % origins.length]!;
      const host = this.hosts.get(origin)!;
      if ((!host.hasWork && host.ahead.length === 0) || host.inFlight >= this.settings.perHost) continue;
      const robots = this.robots.state(origin, now);
      if (robots === 'fetching') continue;
      const readyAt = Math.max(host.lastStart + this.gap(origin), host.pausedUntil);
      if (readyAt > now) {
        wakeAt = Math.min(wakeAt, readyAt);
        continue;
      }
      let task: Task;
      this.keepRequisitesOnly(host);
      // Past --max-pages, robots.txt is asked only where requisites wait.
      const needsClaim = robots === 'unknown' ? this.limitReached : true;
      if (needsClaim && host.ahead.length === 0) {
        this.claim(origin, host);
        continue;
      }
      if (robots === 'unknown') {
        this.robots.startFetching(origin);
        task = { type: 'robots', origin };
      } else {
        const claim = host.ahead.shift()!;
        if (host.hasWork && host.ahead.length < this.claimAhead / 2) this.claim(origin, host);
        // A URL robots.txt refuses is claimed only to be marked skipped: no request, so it does not count.
        if (claim.kind === 'page' && !this.robots.rules(origin)?.refuses(claim.url)) this.pagesStarted += 1;
        task = { type: 'url', claim };
      }
      host.inFlight += 1;
      host.lastStart = now;
      this.cursor = (this.cursor + i + 1) % origins.length;
      return task;
    }
    if (wakeAt < Infinity) return { wakeAt };
    return this.work.size > 0 ? 'pending' : 'empty';
  }

  finished(task: Task): void {
    this.host(taskOrigin(task)).inFlight -= 1;
  }

  async close(): Promise<void> {
    // Claims that answer now are given back with the rest.
    for (let rounds = 0; this.work.size > 0 && rounds < 1_000; rounds += 1) await Promise.all(this.work);
    const ahead = [...this.hosts.values()].flatMap((host) => host.ahead.splice(0));
    await Promise.all(ahead.map((claim) => this.frontier.release(claim)));
    if (this.failure) throw this.failure.error;
  }

  /** Origins that were just given queued URLs. */
  noteWork(origins: Iterable<string>): void {
    for (const origin of origins) {
      const host = this.host(origin);
      host.hasWork = true;
      host.workNoted += 1;
    }
  }

  /** A server asked for a pause (429 or 503 with Retry-After): no new request starts there until it ends. */
  pause(origin: string, ms: number, now: number): void {
    const host = this.host(origin);
    host.pausedUntil = Math.max(host.pausedUntil, now + ms);
  }

  /** A request's headers went out now: gaps are kept from when the server sees a request, not from when it was picked. */
  sent(origin: string, now: number): void {
    const host = this.hosts.get(origin);
    if (host) host.lastStart = Math.max(host.lastStart, now);
  }

  /** For a retry within a slot: how long to wait before it may start; the start is booked. */
  reserveStart(origin: string, now: number): number {
    const host = this.host(origin);
    const at = Math.max(now, host.lastStart + this.gap(origin), host.pausedUntil);
    host.lastStart = at;
    return at - now;
  }
}
