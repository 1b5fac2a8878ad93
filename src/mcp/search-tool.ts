import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answering, jsonAnswer } from './answer-bounds.js';
import type { ArchiveAccess } from './archive-access.js';

/** Hits one search answers with at most. */
export const SEARCH_LIMIT = 50;

export function registerSearch(server: McpServer, archive: ArchiveAccess): void {
  server.registerTool(
    'search',
    {
      title: 'Search the archive',
      description:
        'Full-text search of the archived pages, best matches first: words as typed (stemmed: crawling finds crawl) and "a phrase". ' +
        'Each hit has its url (pass it to read_page), title and a snippet with the matched words in **bold**.',
      inputSchema: {
        query: z.string().min(1).max(1000).describe('words or "a phrase"'),
        limit: z.number().int().min(1).max(SEARCH_LIMIT).default(10).describe(`hits at most (1 to ${SEARCH_LIMIT})`),
        offset: z.number().int().min(0).max(10_000).default(0).describe('hits skipped first: the next page of results'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, limit, offset }) =>
      answering(async () => {
        const hits = await archive.search.search(query, { limit, offset, markStart: '**', markEnd: '**' });
        return jsonAnswer({
          hits: hits.map((hit) => ({
            url: hit.url,
            title: hit.title,
            snippet: hit.snippet,
            ...(hit.section !== null ? { section: hit.section } : {}),
            fetched_at: hit.fetchedAt,
            status: hit.status,
          })),
          ...(hits.length === limit ? { next_offset: offset + limit } : {}),
        });
      }),
  );
}
