import { createReadStream, readFileSync } from 'node:fs';
import { CDXIndexer } from 'warcio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SortedLines } from '../src/export/sorted-lines.js';
import { surt } from '../src/url/index.js';
import { readArchive, tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { EXPORT_CRAWL_FLAGS, startExportSite } from './support/export-site.js';
import type { TestServer } from './support/test-server.js';
import { readWarc } from './support/warc-read.js';

// The CDXJ index of an exported WARC: one line per response or revisit, in
// SURT order, each pointing at its record.

let server: TestServer;
const tmp = tempDir();
const db = tmp.path('site.sqlite');
const warc = tmp.path('site.warc.gz');
const cdxj = tmp.path('site.cdxj');
let text: string;

interface Line {
  key: string;
  timestamp: string;
  json: { url: string; mime?: string; status: string; digest: string; length: string; offset: string; filename: string };
}
let lines: Line[];

beforeAll(async () => {
  server = await startExportSite();
  expect((await runCli(['crawl', server.url, '--db', db, ...EXPORT_CRAWL_FLAGS])).stderr).toBe('');
  const result = await execCli(['export', db, '--warc', warc, '--cdxj', cdxj, '-q']);
  expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  text = readFileSync(cdxj, 'utf8');
  lines = text
    .trimEnd()
    .split('\n')
    .map((line) => {
      const [key, timestamp] = line.split(' ', 2) as [string, string];
      return { key, timestamp, json: JSON.parse(line.slice(key.length + timestamp.length + 2)) as Line['json'] };
    });
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('crawlite export --cdxj', () => {
  it('writes one line per stored response, sorted, keyed by SURT and a 14-digit timestamp', () => {
    const pages = readArchive<{ fetch_url: string }>(db, 'SELECT fetch_url FROM pages');
    expect(lines.map((line) => line.json.url).sort()).toEqual(pages.map((page) => page.fetch_url).sort());
    const raw = text.trimEnd().split('\n');
    expect(raw).toEqual([...raw].sort());
    for (const line of lines) {
      expect(line.key).toBe(surt(line.json.url));
      expect(line.timestamp).toMatch(/^\d{14}$/);
      expect(line.json.filename).toBe('site.warc.gz');
    }
    const cafe = lines.find((line) => line.json.url.endsWith('/caf%C3%A9'))!;
    // As pywb writes SURTs: host parts reversed (an IP address too), lower case.
    expect(cafe.key).toBe(`1,0,0,127:${server.port})/caf%c3%a9`);
  });

  it('points each line at its record: offset, length, target, date, status, mime and digest agree', async () => {
    for (const line of lines) {
      const [record] = await readWarc(warc, { start: Number(line.json.offset), limit: 1 });
      expect(record!.offset).toBe(Number(line.json.offset));
      expect(record!.length).toBe(Number(line.json.length));
      expect(['response', 'revisit']).toContain(record!.type);
      expect(record!.field('WARC-Target-URI')).toBe(line.json.url);
      expect(record!.field('WARC-Date')!.replace(/[-:T]/g, '').slice(0, 14)).toBe(line.timestamp);
      expect(record!.field('WARC-Payload-Digest')).toBe(`sha1:${line.json.digest}`);
      expect(String(record!.httpStatus)).toBe(line.json.status);
      if (record!.type === 'revisit') expect(line.json.mime).toBe('warc/revisit');
    }
    expect(lines.find((line) => line.json.url.endsWith('/twin-b'))!.json.mime).toBe('warc/revisit');
    expect(lines.find((line) => line.json.url.endsWith('/gbk'))!.json.mime).toBe('text/html');
  });

  it("says what warcio's own indexer says of the WARC, line for line, but for keys pywb's surt computes", async () => {
    const indexer = new CDXIndexer({ format: 'cdxj' });
    const theirs: string[] = [];
    for await (const result of indexer.iterIndex([{ filename: 'site.warc.gz', reader: createReadStream(warc) }])) {
      const line = indexer.serializeCDXJ(result).trimEnd();
      theirs.push(`${surt(result.url as string)}${line.slice(line.indexOf(' '))}`);
    }
    expect(text.trimEnd().split('\n')).toEqual(theirs.sort());
  });

  it('sorts more lines than it holds at once through chunk files, and removes them', async () => {
    const sorter = new SortedLines(tmp.path('sort-test'), 3);
    const input = Array.from({ length: 20 }, (_, i) => `key-${(i * 7919) % 20}`.padEnd(8, 'x'));
    for (const line of input) await sorter.add(line);
    const out: string[] = [];
    for await (const line of sorter.sorted()) out.push(line);
    expect(out).toEqual([...input].sort());
    await sorter.dispose();
    expect(() => readFileSync(tmp.path('sort-test.sort-0'))).toThrow();
  });
});
