import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answering, jsonAnswer } from './answer-bounds.js';
import { rowObjects, type ArchiveAccess } from './archive-access.js';
import { McpArgumentError } from './capture-choice.js';

/** Pages one answer lists at most. */
export const LIST_LIMIT = 200;
/** Characters of a listed title or URL: a list shows a line of each. */
const LISTED_CELL_CHARS = 500;

/** A prefix as a GLOB pattern: its own `*`, `?` and `[` matched as themselves. */
const prefixGlob = (prefix: string) => `${prefix.replace(/[*?[]/g, (c) => `[${c}]`)}*`;

export function registerListPages(server: McpServer, archive: ArchiveAccess): void {
  server.registerTool(
    'list_pages',
    {
      title: 'List archived pages',
      description:
        'The archived pages (latest capture of each URL) in URL order, with status, content type, title and date; ' +
        'narrowed by a URL `prefix` or a GLOB `pattern` (`*` any text, `?` one character: https://example.com/docs/*.html). ' +
        "Pass the answer's `next_cursor` as `cursor` for the next page.",
      inputSchema: {
        prefix: z.string().max(2000).optional().describe('URLs that start with this text'),
        pattern: z.string().max(2000).optional().describe('URLs matching this GLOB pattern (case-sensitive)'),
        cursor: z.string().max(10_000).optional().describe('next_cursor of the previous answer'),
        limit: z.number().int().min(1).max(LIST_LIMIT).default(50),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ prefix, pattern, cursor, limit }) =>
      answering(async () => {
        if (prefix !== undefined && pattern !== undefined) throw new McpArgumentError('give prefix or pattern, not both');
        const glob = pattern ?? (prefix !== undefined ? prefixGlob(prefix) : '*');
        // One row more than asked says whether there is a next page.
        const found = await archive.sql.firstRows(
          `SELECT url, status, content_type, title, fetched_at FROM pages
           WHERE url > :after AND url GLOB :glob ORDER BY url LIMIT :limit`,
          { params: { after: cursor ?? '', glob, limit: limit + 1 }, maxRows: limit + 1, cellChars: LISTED_CELL_CHARS },
        );
        const pages = rowObjects(found).slice(0, limit);
        const more = found.rows.length > limit;
        return jsonAnswer({ pages, ...(more ? { next_cursor: found.rows[limit - 1]![0] } : {}) });
      }),
  );
}
