import { readFileSync, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Frame, Page } from 'playwright-core';
import { HAS_CHROMIUM, launchChromium } from './browser.js';

/** Where scripts/test-deps/replaywebpage.sh puts ReplayWeb.page (npm `replaywebpage`, its built viewer); .ci/run runs it. */
const ROOT = fileURLToPath(new URL('../.cache/replaywebpage/package/', import.meta.url));
/** The directory of ReplayWeb.page's index.html, ui.js and sw.js, when scripts/test-deps/replaywebpage.sh has put them there. */
export const REPLAYWEBPAGE_DIR: string | undefined = existsSync(join(ROOT, 'sw.js')) ? ROOT : undefined;
export const HAS_REPLAYWEBPAGE = HAS_CHROMIUM && REPLAYWEBPAGE_DIR !== undefined;

/** Says once, visibly, why a file's ReplayWeb.page tests are skipped, and how to run them. */
export function noticeIfNoReplayWebPage(file: string): void {
  if (!HAS_REPLAYWEBPAGE) {
    console.log(
      `${file}: skipping the ReplayWeb.page tests: ${HAS_CHROMIUM ? 'ReplayWeb.page is not in test/.cache (run scripts/test-deps/replaywebpage.sh)' : 'Chromium is not installed (apt-get install chromium)'}`,
    );
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.wacz': 'application/zip',
};

export interface ReplayWebPage {
  /** Opens `url` (at `ts`, 14 digits, when given) from the WACZ in ReplayWeb.page's embed, as a reader would; the replayed frame, loaded. */
  open(url: string, ts?: string): Promise<Frame>;
  /**
   * Opens `url` as `open` does, in a browser context of its own (a reader's first visit: the service worker
   * starts and loads the WACZ), and waits (bounded) until the replayed page's text holds `expected`.
   * Returns that text, or throws with what every frame showed.
   */
  textOnFirstVisit(url: string, expected: string, ts?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * ReplayWeb.page served on 127.0.0.1 with one WACZ, in Chromium: its embed (`<replay-web-page>`) loads the
 * WACZ through its service worker and shows the page in a frame whose URL holds `mp_/`.
 */
export async function startReplayWebPage(waczPath: string): Promise<ReplayWebPage> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/embed.html') {
      const target = url.searchParams.get('url') ?? '';
      const ts = url.searchParams.get('ts');
      const attr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><script src="/ui.js"></script><replay-web-page style="display:block;width:1280px;height:800px" source="/archive.wacz" ` +
          `url="${attr(target)}" ${ts ? `ts="${attr(ts)}"` : ''} replayBase="/" embed="replayonly"></replay-web-page>`,
      );
      return;
    }
    const file = url.pathname === '/archive.wacz' ? waczPath : join(ROOT, normalize(url.pathname));
    if (!file.startsWith(ROOT) && file !== waczPath) return void res.writeHead(404).end();
    let data: Buffer;
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      data = readFileSync(file);
    } catch {
      return void res.writeHead(404).end();
    }
    // ReplayWeb.page reads a WACZ by ranges, as a static file server answers them.
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range?.[2] ? Math.min(Number(range[2]), data.length - 1) : data.length - 1;
    res.writeHead(range ? 206 : 200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'accept-ranges': 'bytes',
      'content-length': end - start + 1,
      ...(range ? { 'content-range': `bytes ${start}-${end}/${data.length}` } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : data.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
  } catch (error) {
    server.close();
    throw error;
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const openIn = async (page: Page, url: string, ts: string | undefined): Promise<Frame> => {
    await page.goto(`${origin}/embed.html?url=${encodeURIComponent(url)}${ts ? `&ts=${ts}` : ''}`);
    // The viewer loads the WACZ and its index first; the replayed frame appears once the page is found (bounded).
    // A viewer that settles on its page list instead (its service worker still starting) is asked once more.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      for (let tries = 0; tries < 150; tries += 1) {
        const frame = page.frames().find((candidate) => candidate.url().includes('mp_/'));
        if (frame) {
          await frame.waitForLoadState('load');
          return frame;
        }
        await page.waitForTimeout(100);
      }
      await page.reload();
    }
    throw new Error(
      `ReplayWeb.page showed no replay frame for ${url}; frames: ${page
        .frames()
        .map((frame) => frame.url())
        .join(', ')}`,
    );
  };
  return {
    async open(url, ts) {
      return openIn(await context.newPage(), url, ts);
    },
    async textOnFirstVisit(url, expected, ts) {
      const own = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const page = await own.newPage();
        let frame = await openIn(page, url, ts);
        // The frame's document may still be filled in by its own scripts (a fetch answered from the archive).
        let text = '';
        for (let tries = 0; tries < 200 && !text.includes(expected); tries += 1) {
          frame = page.frames().find((candidate) => candidate.url().includes('mp_/')) ?? frame;
          text = await frame.evaluate<string>("document.body ? document.body.innerText : ''").catch(() => text);
          if (!text.includes(expected)) await page.waitForTimeout(100);
        }
        if (text.includes(expected)) return text;
        const frames = await Promise.all(
          page
            .frames()
            .map(
              async (each) =>
                `${each.url()}: ${JSON.stringify(await each.evaluate<string>("document.body ? document.body.innerText.slice(0, 200) : ''").catch(() => '?'))}`,
            ),
        );
        throw new Error(`ReplayWeb.page never showed ${JSON.stringify(expected)} for ${url}; frames: ${frames.join('; ')}`);
      } finally {
        await own.close();
      }
    },
    async close() {
      await browser?.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
