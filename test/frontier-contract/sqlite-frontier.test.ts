import { afterAll } from 'vitest';
import { CrawlRecord } from '../../src/storage/crawl-state/crawl-record.js';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import { SqlitePageSink } from '../../src/storage/crawl-state/sqlite-page-sink.js';
import type { UrlState } from '../../src/pipeline/ports.js';
import { tempDir } from '../support/archive.js';
import { describeFrontierContract } from '../support/frontier-contract.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
let archives = 0;

describeFrontierContract('the SQLite frontier', {
  // One run holds the archive: its leases never run out, and are all one (the run's).
  capabilities: {
    expiringLeases: false,
    keepsSkipped: true,
    storesPages: true,
    limits: true,
    robotsRequeue: true,
    distinctLeases: false,
    pacesAcrossWorkers: false,
  },
  async make(limits) {
    const path = tmp.path(`contract-${(archives += 1)}.sqlite`);
    const db = openArchive(path, 'create');
    const frontier = new SqliteFrontier(db);
    const sink = new SqlitePageSink(db, path, new CrawlRecord(db).startRun({}, new Date()), limits);
    const rowOf = db.prepare<[string], { state: UrlState; depth: number; code: string | null }>(
      'SELECT state, depth, error_code AS code FROM url WHERE url = ?',
    );
    const pagesOf = db.prepare<[string], { status: number; body: Buffer }>('SELECT status, body FROM pages WHERE url = ?');
    const linksOf = db.prepare<[string], { to_url: string }>('SELECT to_url FROM links WHERE from_url = ? ORDER BY to_url');
    return {
      frontier,
      sink,
      async seed(urls) {
        frontier.addRoots(urls.map((url) => ({ url, key: url, origin: new URL(url).origin })));
      },
      row: async (key) => rowOf.get(key),
      pages: async (key) => pagesOf.all(key).map((page) => ({ status: page.status, body: Buffer.from(page.body).toString() })),
      links: async (key) => linksOf.all(key).map((link) => link.to_url),
      second: async () => ({ frontier, sink }),
      async expireLeases() {},
      async close() {
        db.close();
      },
    };
  },
});
