import type { ClaimedUrl, FrontierPort } from '../ports.js';
import type { RobotsBook } from '../robots/robots-book.js';

/** Work for one request slot: a URL from the frontier, or an origin's robots.txt. */
export type Task = { type: 'url'; claim: ClaimedUrl } | { type: 'robots'; origin: string };

/** A task to start now, the time (ms) at which one may be ready, or `empty`: nothing to start. */
export type NextTask = Task | { wakeAt: number } | 'empty';

export interface TaskSource {
  next(now: number): NextTask;
  finished(task: Task): void;
  /** The crawl is over: give back whatever was taken and not started. */
  close(): void;
}

export interface SchedulerSettings {
  /** Requests in flight at most per origin. */
  perHost: number;
  /** Fixed gap between request starts on an origin; overrides Crawl-delay. */
  delayMs?: number;
  /** Requests for URLs of kind `page` at most over the archive's life; requisites, sitemaps and robots.txt are not counted. */
  maxPages?: number;
}

/**
 * URLs claimed from the frontier per origin in one write, ahead of the slots
 * that will fetch them: as many as the origin's slots, within these bounds.
 * Claiming is a transaction of its own, so one per URL cost as much as
 * parsing; a few ahead costs nothing: a crash leaves them `fetching`, which
 * resume queues again, and they were never requested.
 */
const CLAIM_AHEAD_MIN = 8;
const CLAIM_AHEAD_MAX = 32;

interface Host {
  inFlight: number;
  /** Claimed from the frontier, not started yet. */
  ahead: ClaimedUrl[];
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
 */
export class HostScheduler implements TaskSource {
  private readonly hosts = new Map<string, Host>();
  private cursor = 0;
  private pagesStarted: number;
  private readonly claimAhead: number;

  constructor(
    private readonly frontier: FrontierPort,
    private readonly robots: RobotsBook,
    private readonly settings: SchedulerSettings,
    pagesAlreadyFetched: number,
  ) {
    this.pagesStarted = pagesAlreadyFetched;
    this.claimAhead = Math.min(CLAIM_AHEAD_MAX, Math.max(CLAIM_AHEAD_MIN, settings.perHost));
    this.noteWork(frontier.queuedOrigins());
  }

  private host(origin: string): Host {
    let host = this.hosts.get(origin);
    if (!host) {
      host = { inFlight: 0, ahead: [], lastStart: -Infinity, pausedUntil: 0, hasWork: false };
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

  /**
   * The origin's next URL. Past --max-pages only requisites start: they are
   * the price of pages already fetched; pages claimed ahead go back.
   */
  private take(origin: string, host: Host): ClaimedUrl | undefined {
    if (!this.limitReached) {
      if (host.ahead.length === 0) host.ahead = this.frontier.claimFrom(origin, this.claimAhead);
      return host.ahead.shift();
    }
    for (const claim of host.ahead.filter((ahead) => ahead.kind !== 'requisite')) this.frontier.release(claim.id);
    host.ahead = host.ahead.filter((ahead) => ahead.kind === 'requisite');
    if (host.ahead.length === 0) host.ahead = this.frontier.claimFrom(origin, this.claimAhead, 'requisite');
    return host.ahead.shift();
  }

  next(now: number): NextTask {
    const origins = [...this.hosts.keys()];
    let wakeAt = Infinity;
    for (let i = 0; i < origins.length; i += 1) {
      const origin = origins[(this.cursor + i) % origins.length]!;
      const host = this.hosts.get(origin)!;
      if (!host.hasWork || host.inFlight >= this.settings.perHost) continue;
      const robots = this.robots.state(origin, now);
      if (robots === 'fetching') continue;
      const readyAt = Math.max(host.lastStart + this.gap(origin), host.pausedUntil);
      if (readyAt > now) {
        wakeAt = Math.min(wakeAt, readyAt);
        continue;
      }
      let task: Task;
      if (robots === 'unknown') {
        // Past --max-pages, robots.txt is asked only where requisites wait.
        if (this.limitReached && host.ahead.length === 0) host.ahead = this.frontier.claimFrom(origin, this.claimAhead, 'requisite');
        if (this.limitReached && host.ahead.length === 0) {
          host.hasWork = false;
          continue;
        }
        this.robots.startFetching(origin);
        task = { type: 'robots', origin };
      } else {
        const claim = this.take(origin, host);
        if (!claim) {
          host.hasWork = false;
          continue;
        }
        // A URL robots.txt refuses is claimed only to be marked skipped: no request, so it does not count.
        if (claim.kind === 'page' && !this.robots.rules(origin)?.refuses(claim.url)) this.pagesStarted += 1;
        task = { type: 'url', claim };
      }
      host.inFlight += 1;
      host.lastStart = now;
      this.cursor = (this.cursor + i + 1) % origins.length;
      return task;
    }
    return wakeAt < Infinity ? { wakeAt } : 'empty';
  }

  finished(task: Task): void {
    this.host(taskOrigin(task)).inFlight -= 1;
  }

  close(): void {
    for (const host of this.hosts.values()) {
      for (const claim of host.ahead.splice(0)) this.frontier.release(claim.id);
    }
  }

  /** Origins that were just given queued URLs. */
  noteWork(origins: Iterable<string>): void {
    for (const origin of origins) this.host(origin).hasWork = true;
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
