import { afterAll } from 'vitest';
import { CrawlRecord } from '../../src/storage/crawl-state/crawl-record.js';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { CrawlStateThread } from '../../src/storage/crawl-state/crawl-state-thread.js';
import { SqliteFrontier } from '../../src/storage/crawl-state/sqlite-frontier.js';
import type { UrlState } from '../../src/pipeline/ports.js';
import { tempDir } from '../support/archive.js';
import { describeFrontierContract } from '../support/frontier-contract.js';

// The crawl's frontier and sink as a crawl uses them: on their own thread and connection, the archive
// open (and read here) on the main thread's; and, as a crawl starts, answered on this thread's connection
// until the thread is ready. Every rule of the SQLite frontier holds across the thread and the hand-over.

const tmp = tempDir();
afterAll(() => tmp.cleanup());
let archives = 0;

for (const answeredHere of [false, true]) {
  describeFrontierContract(
    answeredHere
      ? 'the SQLite frontier on its own thread, answered here until the thread is ready'
      : 'the SQLite frontier on its own thread',
    {
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
        const path = tmp.path(`thread-contract-${(archives += 1)}.sqlite`);
        const db = openArchive(path, 'create');
        const runId = new CrawlRecord(db).startRun({}, new Date());
        const here = new SqliteFrontier(db);
        const thread = new CrawlStateThread({ path, runId, crawl: 1, limits }, answeredHere ? { db, frontier: here } : undefined);
        const rowOf = db.prepare<[string], { state: UrlState; depth: number; code: string | null }>(
          'SELECT state, depth, error_code AS code FROM url WHERE url = ?',
        );
        const pagesOf = db.prepare<[string], { status: number; body: Buffer }>('SELECT status, body FROM pages WHERE url = ?');
        const linksOf = db.prepare<[string], { to_url: string }>('SELECT to_url FROM links WHERE from_url = ? ORDER BY to_url');
        return {
          frontier: thread.frontier,
          sink: thread.sink,
          async seed(urls) {
            here.addRoots(urls.map((url) => ({ url, key: url, origin: new URL(url).origin })));
          },
          row: async (key) => rowOf.get(key),
          pages: async (key) => pagesOf.all(key).map((page) => ({ status: page.status, body: Buffer.from(page.body).toString() })),
          links: async (key) => linksOf.all(key).map((link) => link.to_url),
          second: async () => ({ frontier: thread.frontier, sink: thread.sink }),
          async expireLeases() {},
          async close() {
            await thread.close();
            db.close();
          },
        };
      },
    },
  );
}
