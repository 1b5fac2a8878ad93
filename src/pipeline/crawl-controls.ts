import { compilePatterns } from './compile-patterns.js';
import type { LiveExclusion } from './scope.js';

/** Who paused the crawl: the command line, serve's live page, or the crawl itself for want of disk. */
export type PausedBy = 'control' | 'serve' | 'disk';

/** The settings another process may change while the crawl runs (`crawlite control set`). */
export interface LiveSettings {
  concurrency: number;
  /** Absent: the concurrency. */
  perHost?: number;
  /** Absent: robots.txt's Crawl-delay. */
  delayMs?: number;
  /** Free bytes under which the crawl pauses itself; 0: never. */
  minFreeDisk: number;
}

/**
 * What steers a running crawl, as it stands: paused or not, its pace, and the exclusions added while it
 * runs. The claim loop and the host scheduler read it at every decision, so a change takes effect at the
 * next request start; listeners are told of each change (a resume wakes the claim loop).
 */
export class CrawlControls {
  private settings: LiveSettings;
  private pausedBy: PausedBy | undefined;
  /** Patterns added with `control exclude`, compiled, by source. */
  private readonly live = new Map<string, RegExp>();
  /** The live exclusions as one array, rebuilt on change: scope checks read it for every URL found. */
  liveExclude: LiveExclusion[] = [];
  /** The crawl's --exclude patterns, compiled; `include` may take one away while the crawl runs. */
  exclude: RegExp[];
  private readonly listeners = new Set<() => void>();

  constructor(settings: LiveSettings, options: { paused?: PausedBy; exclude?: readonly string[]; liveExclude?: readonly string[] } = {}) {
    this.settings = { ...settings };
    this.exclude = compilePatterns([...(options.exclude ?? [])], '--exclude');
    this.pausedBy = options.paused;
    for (const pattern of options.liveExclude ?? []) this.addExclusion(pattern);
  }

  get paused(): PausedBy | undefined {
    return this.pausedBy;
  }

  get concurrency(): number {
    return this.settings.concurrency;
  }

  get perHost(): number {
    return this.settings.perHost ?? this.settings.concurrency;
  }

  get delayMs(): number | undefined {
    return this.settings.delayMs;
  }

  get minFreeDisk(): number {
    return this.settings.minFreeDisk;
  }

  /** Registers a listener for every change; returns its removal. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** URLs were queued from outside the pipeline (an exclusion taken away): the claim loop looks again. */
  wake(): void {
    this.changed();
  }

  pause(by: PausedBy): void {
    this.pausedBy = by;
    this.changed();
  }

  resume(): void {
    if (this.pausedBy === undefined) return;
    this.pausedBy = undefined;
    this.changed();
  }

  set(changes: Partial<LiveSettings>): void {
    this.settings = { ...this.settings, ...changes };
    this.changed();
  }

  addExclusion(pattern: string): void {
    if (this.live.has(pattern)) return;
    // The storage side checked the pattern before it stored it; a bad one cannot get here.
    this.live.set(pattern, compilePatterns([pattern], 'exclude')[0]!);
    this.liveExclude = [...this.live].map(([pattern, regexp]) => ({ pattern, regexp }));
    this.changed();
  }

  /** Takes away a live exclusion, or an --exclude pattern, of this exact text. */
  removeExclusion(pattern: string): void {
    const live = this.live.delete(pattern);
    if (live) this.liveExclude = [...this.live].map(([pattern, regexp]) => ({ pattern, regexp }));
    const before = this.exclude.length;
    this.exclude = this.exclude.filter((compiled) => compiled.source !== pattern && compiled.source !== new RegExp(pattern).source);
    if (live || this.exclude.length !== before) this.changed();
  }

  /** The live exclusion `url` matches, if any. */
  excluding(url: string): LiveExclusion | undefined {
    return this.liveExclude.find((exclusion) => exclusion.regexp.test(url));
  }
}
