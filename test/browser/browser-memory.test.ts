import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, tempDir } from '../support/archive.js';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { runMeasured } from '../support/measured-cli.js';
import { startServer } from '../support/test-server.js';

noticeIfNoBrowser('browser/browser-memory');

// A page that loads many huge images: what a render holds is bounded (bodies read out of the browser
// at once, and what one page keeps), the render goes through, and what it captured is never fetched again.

const MiB = 1024 * 1024;
const IMAGES = 20;
const IMAGE_BYTES = 40 * MiB;
const MAX_BODY = 48 * MiB;

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe.skipIf(!HAS_CHROMIUM)('crawl --browser: memory bounded by the render, not the page', () => {
  it(`a page with ${IMAGES} images of 40 MiB: crawlite stays bounded, the page is rendered, nothing captured is fetched twice`, async () => {
    const image = Buffer.alloc(IMAGE_BYTES, 7);
    const tags = Array.from({ length: IMAGES }, (_, i) => `<img src="/huge-${i}.bin" width="10" height="10">`).join('');
    const site = await startServer((_req, res, path) => {
      if (path === '/')
        return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>huge</title><p>many huge images</p>${tags}`);
      if (path.startsWith('/huge-'))
        return res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': image.length }).end(image);
      res.writeHead(404).end();
    });
    try {
      const db = tmp.path('huge.sqlite');
      const run = await runMeasured(
        ['crawl', site.url, '--db', db, '--browser', '-q', '-c', '2', '--max-body', String(MAX_BODY)],
        tmp.path('peak'),
      );
      expect(run.code, run.stderr).toBe(0);
      const page = readArchive<{ title: string; error_code: string | null }>(
        db,
        'SELECT p.title, u.error_code FROM pages p JOIN url u ON u.url = p.url WHERE p.url = ?',
        site.url,
      );
      expect(page).toEqual([{ title: 'huge', error_code: null }]);
      // Every image is in the archive once, and one the render captured was not fetched again.
      const images = readArchive<{ url: string; n: number }>(
        db,
        "SELECT url, count(*) AS n FROM captures WHERE url LIKE '%/huge-%' GROUP BY url",
      );
      expect(images.length).toBe(IMAGES);
      for (const { n } of images) expect(n).toBe(1);
      for (let i = 0; i < IMAGES; i += 1) expect(site.hitCount(`/huge-${i}.bin`)).toBeLessThanOrEqual(2);
      const twice = Array.from({ length: IMAGES }, (_, i) => site.hitCount(`/huge-${i}.bin`)).filter((hits) => hits === 2).length;
      // What one page keeps is twice --max-body: two of the images, the others fetched by the crawl as requisites.
      expect(twice).toBeGreaterThanOrEqual(IMAGES - 2);
      expect(twice).toBeLessThan(IMAGES);
      console.log(`browser-memory: crawlite's peak RSS ${Math.round(run.peak / MiB)} MiB for ${IMAGES} x ${IMAGE_BYTES / MiB} MiB images`);
      // The page's images are 800 MiB; unbounded, crawlite held several at once, a few copies each.
      expect(run.peak).toBeLessThan(800 * MiB);
    } finally {
      await site.close();
    }
  }, 240_000);
});
