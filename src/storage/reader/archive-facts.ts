import type { Database } from 'better-sqlite3';
import { explainOpenError, openArchive } from '../archive/open-archive.js';
import { archiveOverview, fetchTimeline, type ArchiveOverview, type Timeline } from './archive-overview.js';
import { archiveRelations, type ArchiveRelation } from './archive-relations.js';
import { captureInCrawl, crawlChanges, crawlNumbers, holdsUrl, resolveCrawls, type CapturedContent } from './crawl-changes.js';
import { linksTo } from './links-to.js';
import { mediaTypeCounts, type MediaTypeCount } from './media-types.js';
import { qaTotals, worstQaRows } from './qa-checks.js';
import type { CrawlChange, QaRow, QaTotals } from './reader-types.js';
import { listUrls, type UrlListingFilter, type UrlListingPage } from './url-listing.js';

/**
 * An archive opened read-only for what other rooms read of it besides its pages (those are the
 * ArchiveReader's): its overview, relations and timeline, QA scores, crawls and their changes, the
 * URL listing, the links to a URL. The connection stays inside; a failure of a file that is no
 * archive (found only when first read) is told as opening it would tell it. `label` names the archive
 * in the crawl errors (its path, or 'this archive').
 */
export class ArchiveFacts {
  private constructor(
    private readonly db: Database,
    private readonly path: string,
  ) {}

  static open(path: string): ArchiveFacts {
    return new ArchiveFacts(openArchive(path, 'readonly'), path);
  }

  private read<T>(step: (db: Database) => T): T {
    try {
      return step(this.db);
    } catch (error) {
      return explainOpenError(this.path, error);
    }
  }

  overview(topHosts?: number): ArchiveOverview {
    return this.read((db) => archiveOverview(db, topHosts));
  }

  timeline(): Timeline {
    return this.read((db) => fetchTimeline(db));
  }

  relations(): ArchiveRelation[] {
    return this.read((db) => archiveRelations(db));
  }

  /** QA totals of the checks made since `since` (ISO 8601; all by default). */
  qaTotals(threshold: number, since?: string): QaTotals {
    return this.read((db) => qaTotals(db, threshold, since));
  }

  worstQaRows(limit: number, offset?: number, since?: string): QaRow[] {
    return this.read((db) => worstQaRows(db, limit, offset, since));
  }

  crawlNumbers(label: string = this.path): number[] {
    return this.read((db) => crawlNumbers(db, label));
  }

  resolveCrawls(asked: { from?: number; to?: number }, label: string = this.path): { from: number; to: number } {
    return this.read((db) => resolveCrawls(db, label, asked));
  }

  crawlChanges(from: number, to: number): CrawlChange[] {
    return this.read((db) => crawlChanges(db, from, to));
  }

  holdsUrl(url: string): boolean {
    return this.read((db) => holdsUrl(db, url));
  }

  captureInCrawl(url: string, crawl: number): CapturedContent | undefined {
    return this.read((db) => captureInCrawl(db, url, crawl));
  }

  mediaTypeCounts(): MediaTypeCount[] {
    return this.read((db) => mediaTypeCounts(db));
  }

  listUrls(filter: UrlListingFilter, page: { after?: string; limit: number }): UrlListingPage {
    return this.read((db) => listUrls(db, filter, page));
  }

  linksTo(url: string, limit: number): Array<{ fromUrl: string; kind: string }> {
    return this.read((db) => linksTo(db, url, limit));
  }

  close(): void {
    this.db.close();
  }
}
