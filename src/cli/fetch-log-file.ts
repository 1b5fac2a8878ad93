import { closeSync, openSync, writeSync } from 'node:fs';
import { CrawliteError } from '../crawlite-error.js';
import type { FetchReport } from '../library/index.js';

export class LogFileError extends CrawliteError {
  constructor(path: string, cause: unknown) {
    super('LOG_FILE', `cannot write the log ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** One JSON line per fetch: the seed crawler's per-fetch statistics, for machines. */
export function fetchLogLine(report: FetchReport, at: Date): string {
  return JSON.stringify({
    time: at.toISOString(),
    url: report.url,
    state: report.state,
    status: report.status ?? null,
    bytes: report.size ?? null,
    ms: report.elapsedMs === undefined ? null : Math.round(report.elapsedMs),
    content_type: report.contentType ?? null,
    location: report.location ?? null,
    links: report.linksFound,
    new_links: report.linksNew,
    tries: report.tries,
    error: report.error ? `${report.error.code}: ${report.error.message}` : null,
    render_notes: report.renderNotes ?? [],
  });
}

/** Appends to --log FILE; opened up front so a bad path fails before the crawl starts. */
export class FetchLogFile {
  private readonly fd: number;

  constructor(private readonly path: string) {
    try {
      this.fd = openSync(path, 'a');
    } catch (error) {
      throw new LogFileError(path, error);
    }
  }

  write(report: FetchReport): void {
    // Synchronous: a line per page is small, and a crash never loses a logged line the archive has.
    writeSync(this.fd, `${fetchLogLine(report, new Date())}\n`);
  }

  close(): void {
    closeSync(this.fd);
  }
}
