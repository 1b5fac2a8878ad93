import type { Database } from 'better-sqlite3';
import type { LockOwner } from '../archive/archive-lock.js';
import { connectionOf, openCrawlArchive, type CrawlArchive, type OpenCrawlOptions } from '../archive/open-crawl-archive.js';
import { QaPages } from '../reader/qa-checks.js';
import { archiveReport, rootStates, urlStateCounts } from '../reader/archive-report.js';
import type { ArchiveReport, RootState } from '../reader/reader-types.js';
import { ImportSink } from '../writer/import-sink.js';
import { QaWriter } from '../writer/qa-writer.js';
import { reindexText, type ReindexOptions, type ReindexResult } from '../writer/reindex-text.js';
import { fillMarkdown, type FillMarkdownOptions, type FillMarkdownResult } from '../writer/markdown-writer.js';
import type { AppliedControl, ControlSettingsChange } from '../../pipeline/ports.js';
import { ControlRequests } from '../control/control-requests.js';
import { ControlSettings } from '../control/control-settings.js';
import type { StoredControls } from '../control/control-status.js';
import { CrawlLiveRow } from '../control/crawl-live-row.js';
import { LiveExclusions } from '../control/live-exclusions.js';
import { CrawlRecord } from './crawl-record.js';
import type { CrawlStateSetup } from './crawl-state-protocol.js';
import { CrawlStateThread } from './crawl-state-thread.js';
import { latestCrawl, queueRecrawl, unfinishedUrls } from './queue-recrawl.js';
import { requeueFailed } from './requeue-failed.js';
import { ShardPageSink } from './shard-page-sink.js';
import { SqliteFrontier } from './sqlite-frontier.js';
import { SqlitePageSink, type SinkLimits } from './sqlite-page-sink.js';

/**
 * An archive opened for writing under the lock a crawl takes, and what a writer under that lock does with
 * it (a crawl, a worker's shard, an import, a reindex, a QA run): one method per operation, each with the
 * statements and transactions it always had. The connection stays here, inside storage.
 */
export class LockedArchive {
  /** The run rows and the stored roots and options. */
  readonly record: CrawlRecord;
  private readonly db: Database;

  private constructor(private readonly archive: CrawlArchive) {
    this.db = connectionOf(archive);
    this.record = new CrawlRecord(this.db);
  }

  /** Takes the archive's lock, then opens, checks and migrates it (see openCrawlArchive). */
  static async open(path: string, mode: 'create' | 'existing', owner: LockOwner, options: OpenCrawlOptions = {}): Promise<LockedArchive> {
    return new LockedArchive(await openCrawlArchive(path, mode, owner, options));
  }

  get path(): string {
    return this.archive.path;
  }

  /** False once closed (or once a failed connection was closed). */
  get isOpen(): boolean {
    return this.archive.isOpen;
  }

  /** URLs the last run left queued or in flight. */
  unfinishedUrls(): number {
    return unfinishedUrls(this.db);
  }

  /** The crawl number of the latest run; undefined when the archive has none. */
  latestCrawl(): number | undefined {
    return latestCrawl(this.db);
  }

  /** The frontier of crawl `crawl`, on this connection. */
  frontier(crawl: number): SqliteFrontier {
    return new SqliteFrontier(this.db, crawl);
  }

  /** Queues every failed URL again with fresh tries; returns how many. */
  requeueFailed(): number {
    return requeueFailed(this.db);
  }

  /**
   * Starts crawl `crawl` as a re-crawl: its run row and the finished URLs queued again (all, or those keyed in
   * `only`) in one transaction, so a crash between them cannot split the two.
   */
  startRecrawl(options: object, crawl: number, only?: readonly string[]): { runId: number; queued: number } {
    return this.db.transaction(() => {
      const runId = this.record.startRun(options, new Date(), crawl);
      return { runId, queued: queueRecrawl(this.db, crawl, only) };
    })();
  }

  /**
   * The controls a run starts from: the stored settings (those `given` on this run's command line are
   * forgotten, so the run's options hold them from now on) and the live exclusions.
   */
  controlsAtStart(given: readonly (keyof ControlSettingsChange)[]): { stored: StoredControls; exclusions: string[] } {
    const settings = new ControlSettings(this.db);
    settings.forget(given);
    return { stored: settings.read(), exclusions: new LiveExclusions(this.db).patterns() };
  }

  /** Applies the requests other processes left while no crawl ran (see ControlRequests); returns those applied. */
  applyControlRequests(): AppliedControl[] {
    return new ControlRequests(this.db).applyWaiting();
  }

  /** Skips the queued URLs that match --exclude patterns (given as a crawl goes on), in one transaction; how many. */
  pruneExcluded(patterns: readonly string[]): number {
    const exclusions = new LiveExclusions(this.db);
    return this.db.transaction(() => exclusions.pruneStored(patterns)).immediate();
  }

  /** The run has ended: its live row says so. */
  liveEnded(): void {
    new CrawlLiveRow(this.db).ended(new Date());
  }

  /** The URLs by state, from the index alone. */
  urlStateCounts(): Record<'queued' | 'fetching' | 'done' | 'failed' | 'skipped', number> {
    return urlStateCounts(this.db);
  }

  /** How each root ended. */
  rootStates(roots: { url: string; key: string }[]): RootState[] {
    return rootStates(this.db, roots);
  }

  /** The archive's report, for run `runId` when given. */
  archiveReport(runId?: number): ArchiveReport {
    return archiveReport(this.db, runId);
  }

  /** The crawl's frontier and page sink on a thread of their own; `frontier` answers on this connection until it is ready. */
  stateThread(setup: Omit<CrawlStateSetup, 'path'>, frontier?: SqliteFrontier): CrawlStateThread {
    return new CrawlStateThread({ path: this.path, ...setup }, { db: this.db, ...(frontier ? { frontier } : {}) });
  }

  /** A page sink for run `runId` on this connection (a worker's shard writes through it). */
  pageSink(runId: number, limits: SinkLimits = {}): SqlitePageSink {
    return new SqlitePageSink(this.db, this.path, runId, limits);
  }

  /** A shard's sink: the pages a worker claimed from a shared frontier, written through `pages`. */
  shardPageSink(pages: SqlitePageSink): ShardPageSink {
    return new ShardPageSink(this.db, this.path, pages);
  }

  /** The sink an import of run `runId` writes through. */
  importSink(runId: number): ImportSink {
    return new ImportSink(this.db, this.path, runId);
  }

  /** The pages a QA run replays. */
  qaPages(): QaPages {
    return new QaPages(this.db);
  }

  /** Where a QA run stores its scores. */
  qaWriter(): QaWriter {
    return new QaWriter(this.db);
  }

  /** Indexes the text of every HTML page that has none, or an older extraction's, batch by batch. */
  reindexText(options: ReindexOptions): Promise<ReindexResult> {
    return reindexText(this.db, options);
  }

  /** Stores the Markdown of every HTML page's latest capture that has none, or an older version's, batch by batch. */
  fillMarkdown(options: FillMarkdownOptions): Promise<FillMarkdownResult> {
    return fillMarkdown(this.db, options);
  }

  /** Ends writing and releases the lock. Safe to call twice. */
  close(): void {
    this.archive.close();
  }
}
