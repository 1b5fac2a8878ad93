import type { IncomingMessage, ServerResponse } from 'node:http';
import { html } from './html.js';
import { sqlRefusal } from './sql-refusal.js';
import { UiHttpError, type UiContext, type UiPage } from './ui-context.js';

// `/sql.csv?sql=` and `/sql.json?sql=`: every row of one statement, streamed as it is read
// (the writer waits while the client is slow), with the SQL page's guard and a time limit
// of its own. A refusal before the first row is a page with its status; a failure after it
// cuts the connection, so the client sees a broken download, never a short one that looks whole.

export type DownloadFormat = 'csv' | 'json';

const isBlob = (value: unknown): value is Uint8Array => value instanceof Uint8Array;
const base64 = (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');

function jsonCell(value: unknown): unknown {
  if (isBlob(value)) return base64(value);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return value;
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = isBlob(value) ? base64(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The text of a download, piece by piece: its start (once the columns are known), each batch, its end. */
function encoder(format: DownloadFormat, columns: string[]) {
  let first = true;
  return format === 'csv'
    ? { start: `${columns.map(csvCell).join(',')}\r\n`, rows: (rows: unknown[][]) => rows.map((row) => `${row.map(csvCell).join(',')}\r\n`).join(''), end: '' }
    : {
        start: '[',
        rows: (rows: unknown[][]) =>
          rows
            .map((row) => {
              const text = JSON.stringify(Object.fromEntries(columns.map((name, i) => [name, jsonCell(row[i])])));
              const joined = first ? `\n${text}` : `,\n${text}`;
              first = false;
              return joined;
            })
            .join(''),
        end: '\n]\n',
      };
}

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
  let out: ReturnType<typeof encoder> | undefined;
  // The status is sent with the first row, or at the end: a query stopped before it has a row is still a page saying why.
  const begin = () => {
    if (res.headersSent) return '';
    res.writeHead(200, sent);
    return out!.start;
  };
  let stop: (() => void) | undefined;
  res.once('close', () => stop?.());
  try {
    const end = await context.sql.allRows(
      sql,
      {
        columns: (columns) => {
          out = encoder(format, columns);
        },
        rows: async (rows) => {
          if (!(await write(res, begin() + out!.rows(rows)))) stop?.();
        },
      },
      (query) => {
        stop = () => query.stop();
        if (res.destroyed) stop();
      },
    );
    if (end === 'done' && out) {
      res.end(begin() + out.end);
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
    return { status: refusal.status, title: 'SQL', body: html`<h1>${refusal.status}</h1><p class="error" id="sql-error">${refusal.message}</p>` };
  }
}
