import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RowsFormat } from '../../storage/query/index.js';
import { html } from './html.js';
import { sqlRefusal } from './sql-refusal.js';
import { UiHttpError, type UiContext, type UiPage } from './ui-context.js';

// `/sql.csv?sql=` and `/sql.json?sql=`: every row of one statement, streamed as it is read
// (the writer waits while the client is slow), with the SQL page's guard and a time limit
// of its own. The document is made in the query's process (src/storage/query/encode-rows.ts)
// and comes in pieces, so a cell of hundreds of megabytes never sits whole in serve. A refusal before the first row is a page with its status; a failure after it
// cuts the connection, so the client sees a broken download, never a short one that looks whole.

export type DownloadFormat = RowsFormat;

/** Writes, then waits while the socket is backed up; false once the client went away. */
function write(res: ServerResponse, text: string): Promise<boolean> {
  if (!text || res.write(text)) return Promise.resolve(!res.destroyed);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', drained);
      res.off('close', closed);
      resolve(ok);
    };
    const drained = () => done(true);
    const closed = () => done(false);
    res.once('drain', drained);
    res.once('close', closed);
  });
}

/**
 * Streams the rows of `?sql=` to `res` with `headers` (the UI's security headers). Returns a page to send
 * instead when nothing was sent (a refusal, the time limit met before the first row), else undefined.
 */
export async function sqlDownload(
  context: UiContext,
  format: DownloadFormat,
  params: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
  headers: Record<string, string>,
): Promise<UiPage | undefined> {
  const sql = params.get('sql') ?? '';
  if (!context.sql) throw new UiHttpError(501, 'SQL queries are not available here.');
  if (!sql.trim()) throw new UiHttpError(400, `name the query: /sql.${format}?sql=select ...`);
  const type = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8';
  const sent = { ...headers, 'content-type': type, 'content-disposition': `attachment; filename="query.${format}"` };
  if (req.method === 'HEAD') {
    res.writeHead(200, sent).end();
    return undefined;
  }
  // The status is sent with the first piece, which holds the first row (or the whole document): a query stopped before it has a row is still a page saying why.
  let stop: (() => void) | undefined;
  res.once('close', () => stop?.());
  try {
    const end = await context.sql.allRows(
      sql,
      format,
      async (text) => {
        if (!res.headersSent) res.writeHead(200, sent);
        if (!(await write(res, text))) stop?.();
      },
      (query) => {
        stop = () => query.stop();
        if (res.destroyed) stop();
      },
    );
    if (end === 'done' && res.headersSent) {
      res.end();
    } else if (end === 'done') {
      // A statement whose columns never came (none are run): nothing was sent yet.
      return { status: 400, title: 'SQL', body: html`<p class="error">query returned no columns</p>` };
    } else {
      res.destroy();
    }
    return undefined;
  } catch (error) {
    if (res.headersSent) {
      res.destroy();
      return undefined;
    }
    const refusal = sqlRefusal(error, context.sql.downloadTimeoutMs);
    if (!refusal) throw error;
    return {
      status: refusal.status,
      title: 'SQL',
      body: html`<h1>${refusal.status}</h1><p class="error" id="sql-error">${refusal.message}</p>`,
    };
  }
}
