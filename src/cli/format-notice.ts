import type { CrawlNotice as RunNotice } from '../library/index.js';
import { asFlag, asValue } from './crawl-flags.js';
import { describeMissingSession } from './session-flags.js';
import { formatBytes } from './format-report.js';

/** A run's notice as the command line says it, options named as typed: `--max-pages 300 (was 150)`. */
export function formatNotice(notice: RunNotice, dbPath: string): string {
  switch (notice.kind) {
    case 'waiting-for-reader':
      return notice.message;
    case 'failed-requeued':
      return `${notice.count} failed URL${notice.count === 1 ? '' : 's'} queued again with fresh tries`;
    case 'starting':
      return `crawling ${notice.roots.join(' ')} into ${dbPath} (concurrency ${notice.concurrency})`;
    case 'recrawling':
      return `re-crawling ${dbPath} (crawl ${notice.crawl}): ${notice.queued} URL${notice.queued === 1 ? '' : 's'} queued again`;
    case 'resuming':
      return (
        `resuming ${dbPath}: ${notice.done} done, ${notice.queued} queued` +
        (notice.requeued ? `, ${notice.requeued} left in flight by the last run are queued again` : '')
      );
    case 'complete':
      return `${dbPath}: the crawl is complete (${notice.done} done, ${notice.failed} failed, ${notice.skipped} skipped): nothing to resume; crawlite recrawl ${dbPath} fetches it again`;
    case 'options-changed':
      return `stored for this archive from now on: ${notice.changes.map(({ option, value, was }) => `${asFlag(option, value)} (was ${asValue(option, was)})`).join(', ')}`;
    case 'session-missing':
      return `note: ${describeMissingSession(notice.missing)}`;
    case 'excluded-queued':
      return `${notice.count} queued URL${notice.count === 1 ? '' : 's'} match --exclude: skipped`;
    case 'paused':
      if (notice.by === 'disk')
        return `paused: ${formatBytes(notice.free ?? 0)} free on the archive's disk, under --min-free-disk ${formatBytes(notice.min ?? 0)}; free some space, then crawlite control ${dbPath} resume (or set --min-free-disk lower)`;
      return `paused${notice.atStart ? '' : ` by ${notice.by === 'serve' ? "serve's live page" : 'crawlite control'}`}: crawlite control ${dbPath} resume to go on`;
    case 'resumed':
      return 'resumed';
    case 'controlled':
      return `control: ${notice.what}`;
  }
}
