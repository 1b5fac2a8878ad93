import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answering, jsonAnswer } from './answer-bounds.js';
import { rowObjects, type ArchiveAccess } from './archive-access.js';

/** Rows one statement answers with at most: serve's SQL page shows as many. */
export const SQL_ROWS = 200;

export function registerSql(server: McpServer, archive: ArchiveAccess): void {
  server.registerTool(
    'sql',
    {
      title: 'Query the archive with SQL',
      description:
        "One read-only SQLite statement over the archive's views: pages (latest capture per URL), captures, links, urls, " +
        `page_text, and the FTS5 index page_text_fts. At most ${SQL_ROWS} rows and ${archive.sql.timeoutMs / 1000} seconds; ` +
        'a longer cell is cut (…), a BLOB given as its size; writes are refused.',
      inputSchema: { sql: z.string().min(1).max(10_000).describe('one SELECT, WITH, VALUES or reporting PRAGMA') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ sql }) =>
      answering(async () => {
        const found = await archive.sql.firstRows(sql, { maxRows: SQL_ROWS });
        return jsonAnswer({
          columns: found.columns,
          rows: rowObjects(found),
          ...(found.cut ? { note: `only the first ${found.rows.length} rows: narrow the query or add LIMIT and OFFSET` } : {}),
        });
      }),
  );
}
