import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { captureText, decodeText, isHtml } from '../html/index.js';
import type { ArchivedPage } from '../storage/reader/index.js';
import { answering, textAnswer } from './answer-bounds.js';
import type { ArchiveAccess } from './archive-access.js';
import { archivedUrl, chooseCapture, McpArgumentError } from './capture-choice.js';
import { captureHtml, captureMarkdown } from './page-markdown.js';

export const PAGE_FORMATS = ['markdown', 'text', 'html'] as const;
type PageFormat = (typeof PAGE_FORMATS)[number];

/** Capture times listed beside the one read, at most. */
const LISTED_CAPTURES = 20;

/** Bodies that read as text; an image or a PDF is named, not dumped. */
const isTextual = (type: string | null) =>
  type === null || isHtml(type) || /^text\/|[+/](json|xml|javascript|ecmascript)\b/i.test(type.split(';')[0]!.trim());

function body(page: ArchivedPage, format: PageFormat): { text: string; note?: string } {
  const capture = { body: page.body, content_type: page.contentType, charset: page.charset };
  if (!isTextual(page.contentType))
    throw new McpArgumentError(`${page.url} is ${page.contentType} (${page.size} bytes), not text: there is nothing to read in it`);
  if (format === 'html') {
    return { text: isHtml(page.contentType) ? captureHtml(capture) : decodeText(page.body, page.charset) };
  }
  if (format === 'text') return { text: captureText(capture) };
  const { markdown, note } = captureMarkdown(capture, page.url);
  return { text: markdown, ...(note ? { note } : {}) };
}

export function registerReadPage(server: McpServer, archive: ArchiveAccess): void {
  server.registerTool(
    'read_page',
    {
      title: 'Read an archived page',
      description:
        'One capture of an archived URL: the latest, or with `timestamp` the latest made at or before that time. ' +
        'Markdown by default, `text` for the page text, `html` for the page as archived. The answer starts with the ' +
        "capture's url, date (fetched_at), status and crawl, then a line `---`, then the page.",
      inputSchema: {
        url: z.string().min(1).max(8192).describe('the page URL, as search or list_pages gave it'),
        timestamp: z.string().max(40).optional().describe('ISO 8601 or 14 digits (20261129023903): the capture at or before that time'),
        format: z.enum(PAGE_FORMATS).default('markdown'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ url, timestamp, format }) =>
      answering(() => {
        const key = archivedUrl(archive.reader, url);
        const found = key === undefined ? undefined : chooseCapture(archive.reader, key, timestamp);
        if (!found) throw new McpArgumentError(`${url} is not in the archive: find pages with search or list_pages`);
        const { page, times } = found;
        const { text, note } = body(page, format);
        const others = times.filter((time) => time.fetchedAt !== page.fetchedAt).slice(-LISTED_CAPTURES);
        const head = [
          `url: ${page.url}`,
          `fetched_at: ${page.fetchedAt}`,
          `status: ${page.status}${page.revalidated ? ' (confirmed by a 304 Not Modified)' : ''}`,
          `crawl: ${page.crawl ?? 1}`,
          `content_type: ${page.contentType ?? ''}`,
          ...(page.location ? [`location: ${page.location}`] : []),
          `format: ${format}`,
          ...(page.title ? [`title: ${page.title.slice(0, 300)}`] : []),
          ...(others.length ? [`other_captures: ${others.map((time) => time.fetchedAt).join(', ')}`] : []),
          ...(note ? [`note: ${note}`] : []),
          '---',
        ];
        return textAnswer(`${head.join('\n')}\n${text}`);
      }),
  );
}
