import { decodeHtml, isHtml } from '../html/index.js';
import { pageMarkdown } from '../markdown/index.js';
import { closeSync, writeSync } from 'node:fs';
import { openArchive } from '../storage/reader/index.js';
import { openInside, prepareMarkdownDir, writeInside } from './markdown-files.js';
import { markdownPath } from './markdown-paths.js';

export interface MarkdownExportOptions {
  db: string;
  dir: string;
  force: boolean;
  signal?: AbortSignal;
  onProgress?: (pages: number) => void;
}

export interface MarkdownExportSummary {
  pages: number;
  dir: string;
}

/** Longest description in llms.txt, in characters. */
const MAX_DESCRIPTION = 200;

/** The first paragraph of prose, without Markdown syntax: what llms.txt says of a page. */
function describe(markdown: string): string {
  for (const line of markdown.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed || /^(#|-|\*|\d+\.|\||`|!|>)/.test(trimmed)) continue;
    const plain = trimmed
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[*_`]/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (plain.length < 20) continue;
    return plain.length > MAX_DESCRIPTION ? `${[...plain].slice(0, MAX_DESCRIPTION - 1).join('')}…` : plain;
  }
  return '';
}

/** One line of llms.txt's text: no line breaks, no brackets that would end the link text early. */
const inline = (text: string) => text.replace(/\s+/g, ' ').replace(/[[\]]/g, '').trim();

/** A relative path as a link target: each segment percent-encoded. */
const href = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/**
 * Writes each HTML page's latest capture as a `.md` file with YAML front matter (url, title, fetched_at,
 * crawl), an `llms.txt` index and an `llms-full.txt` of every page, under `dir`. Markdown that
 * `crawlite markdown` stored is used as is; other pages are converted as they are written.
 */
export async function exportMarkdown(options: MarkdownExportOptions): Promise<MarkdownExportSummary> {
  const reader = openArchive(options.db);
  let full: number | undefined;
  try {
    const root = prepareMarkdownDir(options.dir, options.force);
    const taken = new Set(['llms.txt', 'llms-full.txt']);
    const index: string[] = [];
    // Written page by page: the whole site's Markdown is never held at once.
    full = openInside(root, 'llms-full.txt');
    let firstTitle: string | null = null;
    let firstHost = '';
    let pages = 0;
    for (const page of reader.pages({ kind: 'page', status: { min: 200, max: 299 } })) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (!isHtml(page.contentType)) continue;
      const stored = reader.markdown(page.url, page.fetchedAt);
      const made = stored ?? pageMarkdown(decodeHtml(page.body, page.contentType).text, page.url);
      const title = made.title ?? page.title ?? page.url;
      const path = markdownPath(page.url, taken);
      const front = [
        '---',
        `url: ${JSON.stringify(page.url)}`,
        `title: ${JSON.stringify(title)}`,
        `fetched_at: ${JSON.stringify(page.fetchedAt)}`,
        `crawl: ${page.crawl ?? 1}`,
        '---',
        '',
      ].join('\n');
      writeInside(root, path, `${front}${made.markdown}\n`);
      const description = describe(made.markdown);
      index.push(`- [${inline(title) || page.url}](${href(path)})${description ? `: ${inline(description)}` : ''}`);
      writeSync(full, `${pages > 0 ? '\n' : ''}# ${inline(title)}\n\nSource: ${page.url}\n\n${made.markdown}\n`);
      if (pages === 0) {
        firstTitle = title;
        firstHost = URL.canParse(page.url) ? new URL(page.url).host : page.url;
      }
      pages += 1;
      options.onProgress?.(pages);
      if (pages % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const heading = inline(firstTitle ?? 'Archived pages');
    const llms = [
      `# ${heading}`,
      '',
      `> ${pages} page${pages === 1 ? '' : 's'} of ${firstHost || 'an archive'}, archived by crawlite, as Markdown.`,
      '',
      '## Pages',
      '',
      ...index,
      '',
    ];
    writeInside(root, 'llms.txt', llms.join('\n'));
    return { pages, dir: root };
  } finally {
    if (full !== undefined) closeSync(full);
    reader.close();
  }
}
