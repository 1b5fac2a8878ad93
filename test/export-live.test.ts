import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from './support/archive.js';
import { execCli, spawnCli } from './support/cli.js';
import { startGatedSite } from './support/gated-site.js';
import type { TestServer } from './support/test-server.js';
import { waitFor } from './support/wait.js';
import { readWarc } from './support/warc-read.js';

// Exporting an archive a crawl is writing: the export reads one snapshot, so
// its warcinfo, records and index agree with each other, and the crawl goes on.

const tmp = tempDir();
let server: TestServer | undefined;

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

describe('crawlite export during a crawl', () => {
  it('exports a consistent snapshot while the crawl writes, and the crawl ends cleanly', async () => {
    // 60 pages at 50 ms, two at a time: the crawl writes while the export starts, and from /p/40 on its pages
    // wait for the gate, so it is surely still running when the export is done, however busy the machine.
    const PAGES = 60;
    const site = await startGatedSite({ pages: PAGES, gatedFrom: 40, delayMs: 50, gateLimitMs: 120_000 });
    server = site.server;
    const db = tmp.path('live.sqlite');
    const child = spawnCli(['crawl', server.url, '--db', db, '-q', '--concurrency', '2']);
    try {
      await waitFor(
        'five pages in the archive',
        () => {
          try {
            return readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM pages')[0]!.n >= 5;
          } catch {
            return false;
          }
        },
        60_000,
      );
      const warc = tmp.path('live.warc.gz');
      const cdxj = tmp.path('live.cdxj');
      const exported = await execCli(['export', db, '--warc', warc, '--cdxj', cdxj, '-q']);
      expect(exported).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(child.exitCode).toBeNull();
      site.openGate();

      const records = await readWarc(warc);
      const captures = records.filter((r) => r.type === 'response' || r.type === 'revisit');
      const counted = /as received for (?:\d+ of|all) (\d+) responses/.exec(records[0]!.block.toString())![1];
      expect(captures).toHaveLength(Number(counted));
      expect(records.filter((r) => r.type === 'request')).toHaveLength(captures.length);
      expect(readFileSync(cdxj, 'utf8').trimEnd().split('\n')).toHaveLength(captures.length);
      expect(captures.length).toBeLessThan(PAGES + 2);

      const result = await child.exited;
      expect(result.code, result.stderr).toBe(0);
    } finally {
      site.openGate();
      child.kill('SIGKILL');
    }
  });
});
