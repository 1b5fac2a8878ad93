import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { normalizeUrl } from '../url/index.js';
import { answering, jsonAnswer } from './answer-bounds.js';
import { rowObjects, type ArchiveAccess } from './archive-access.js';
import { McpArgumentError } from './capture-choice.js';

/** Links one answer lists at most. */
export const LINKS_LIMIT = 500;
const LISTED_CELL_CHARS = 2000;

export function registerLinks(server: McpServer, archive: ArchiveAccess): void {
  server.registerTool(
    'links',
    {
      title: 'Links from or to a page',
      description:
        'The links found on a page (`from`: its outlinks, with their kind and nofollow) or the pages that link to a URL ' +
        "(`to`: its backlinks), in URL order. Pass the answer's `next_cursor` as `cursor` for the next page.",
      inputSchema: {
        from: z.string().min(1).max(8192).optional().describe('the page whose links to list'),
        to: z.string().min(1).max(8192).optional().describe('the URL whose backlinks to list'),
        cursor: z.string().max(10_000).optional(),
        limit: z.number().int().min(1).max(LINKS_LIMIT).default(100),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ from, to, cursor, limit }) =>
      answering(async () => {
        if ((from === undefined) === (to === undefined))
          throw new McpArgumentError('give one of from or to: the page whose links to list, or the URL linked to');
        const asked = (from ?? to)!;
        // As typed, or as the archive keys it (normalised).
        const normalized = normalizeUrl(asked);
        const key = 'error' in normalized ? asked : normalized.key;
        const [near, far] = from !== undefined ? ['from_url', 'to_url'] : ['to_url', 'from_url'];
        const found = await archive.sql.firstRows(
          `SELECT ${far} AS url, kind, nofollow FROM links
           WHERE ${near} IN (:asked, :key) AND ${far} > :after ORDER BY ${far} LIMIT :limit`,
          { params: { asked, key, after: cursor ?? '', limit: limit + 1 }, maxRows: limit + 1, cellChars: LISTED_CELL_CHARS },
        );
        const links = rowObjects(found)
          .slice(0, limit)
          .map((row) => ({ ...row, nofollow: row['nofollow'] === 1 }));
        const more = found.rows.length > limit;
        return jsonAnswer({
          [from !== undefined ? 'from' : 'to']: key,
          links,
          ...(more ? { next_cursor: found.rows[limit - 1]![0] } : {}),
        });
      }),
  );
}
