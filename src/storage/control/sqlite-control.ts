import type { Database } from 'better-sqlite3';
import type { AppliedControl, ControlPort, LiveState } from '../../pipeline/ports.js';
import { ControlRequests } from './control-requests.js';
import { CrawlLiveRow } from './crawl-live-row.js';

/** The control port of a crawl on one archive: its requests and its live row, on the connection that writes the crawl. */
export class SqliteControl implements ControlPort {
  private readonly requests: ControlRequests;
  private readonly live: CrawlLiveRow;

  constructor(db: Database) {
    this.requests = new ControlRequests(db);
    this.live = new CrawlLiveRow(db);
  }

  // Answered with Promises, as every port is; SQLite's work is done on the call.
  async waiting(): Promise<{ upTo: number; exclusions: string[] }> {
    return this.requests.waiting();
  }

  async applyWaiting(upTo?: number): Promise<AppliedControl[]> {
    return this.requests.applyWaiting(upTo);
  }

  async writeLive(live: LiveState): Promise<void> {
    this.live.write(live, new Date());
  }
}
