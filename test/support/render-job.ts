import type { RenderJob } from '../../src/pipeline/renderer.js';

/**
 * A job as the crawl hands it to the renderer: the document already fetched (here, written by the
 * test, so the site never serves it), and the rule for what the page may fetch (same origin by default).
 */
export function renderJob(
  url: string,
  html: string,
  admits: (url: string) => boolean = (other) => new URL(other).origin === new URL(url).origin,
): RenderJob {
  const now = new Date().toISOString();
  return {
    url,
    document: {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: Buffer.from(html),
      fetchedAt: now,
      elapsedMs: 1,
    },
    admits,
  };
}
