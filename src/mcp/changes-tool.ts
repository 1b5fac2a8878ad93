import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CHANGE_KINDS, changeCountsQuery, changesPageQuery, type ChangeKind } from '../storage/reader/index.js';
import { answering, jsonAnswer } from './answer-bounds.js';
import { rowObjects, type ArchiveAccess } from './archive-access.js';

/** Changes one answer lists at most. */
export const CHANGES_LIMIT = 200;
/** Listed unless a kind is asked for: what changed, not what stayed. */
const LISTED: readonly ChangeKind[] = CHANGE_KINDS.filter((kind) => kind !== 'unchanged');

export function registerChanges(server: McpServer, archive: ArchiveAccess): void {
  server.registerTool(
    'changes',
    {
      title: 'What changed between two crawls',
      description:
        'Compares two crawls of the archive (by default the latest and the one before it): how many URLs are new, ' +
        'changed, unchanged, redirected or gone, and the URLs that changed with their status in each crawl, in URL order. ' +
        "Pass the answer's `next_cursor` as `cursor` for the next page.",
      inputSchema: {
        from: z.number().int().min(1).optional().describe('the earlier crawl (1 is the first); default the one before `to`'),
        to: z.number().int().min(1).optional().describe('the later crawl; default the latest'),
        kind: z
          .enum(CHANGE_KINDS as [ChangeKind, ...ChangeKind[]])
          .optional()
          .describe('only changes of this kind'),
        cursor: z.string().max(10_000).optional(),
        limit: z.number().int().min(1).max(CHANGES_LIMIT).default(50),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answering(async () => {
        const { from, to } = archive.facts.resolveCrawls({ from: args.from, to: args.to });
        const counts = changeCountsQuery(from, to);
        const page = changesPageQuery(from, to, {
          kinds: args.kind ? [args.kind] : LISTED,
          after: args.cursor ?? '',
          limit: args.limit + 1,
        });
        const [countRows, pageRows] = await Promise.all([
          archive.sql.firstRows(counts.sql, { params: counts.params, maxRows: CHANGE_KINDS.length }),
          archive.sql.firstRows(page.sql, { params: page.params, maxRows: args.limit + 1, cellChars: 2000 }),
        ]);
        const totals = Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, 0]));
        for (const [kind, n] of countRows.rows as Array<[ChangeKind, number]>) totals[kind] = n;
        const more = pageRows.rows.length > args.limit;
        return jsonAnswer({
          from,
          to,
          counts: totals,
          changes: rowObjects(pageRows).slice(0, args.limit),
          ...(more ? { next_cursor: pageRows.rows[args.limit - 1]![0] } : {}),
        });
      }),
  );
}
