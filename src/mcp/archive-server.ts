import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ArchiveAccess } from './archive-access.js';
import { registerChanges } from './changes-tool.js';
import { registerLinks } from './links-tool.js';
import { registerListPages } from './list-pages-tool.js';
import { registerReadPage } from './read-page-tool.js';
import { registerSearch } from './search-tool.js';
import { registerSql } from './sql-tool.js';

/** The tools, in the order tools/list names them. */
export const TOOL_NAMES = ['search', 'read_page', 'list_pages', 'links', 'changes', 'sql'] as const;

/** An MCP server whose tools read `archive`; one per connection, all sharing the archive's runners. */
export function archiveServer(archive: ArchiveAccess, version: string): McpServer {
  const server = new McpServer(
    { name: 'crawlite', version },
    {
      instructions:
        'A web archive made by crawlite: search it, read its pages as they were captured, list them, follow their links, ' +
        'compare two crawls, or query it with read-only SQL. Everything is offline: only archived pages can be read.',
    },
  );
  registerSearch(server, archive);
  registerReadPage(server, archive);
  registerListPages(server, archive);
  registerLinks(server, archive);
  registerChanges(server, archive);
  registerSql(server, archive);
  return server;
}
