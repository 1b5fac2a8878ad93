import type { QueryResult } from '../storage/read-only-query.js';

export type RowFormat = 'table' | 'json' | 'csv' | 'ndjson';
export const ROW_FORMATS: RowFormat[] = ['table', 'json', 'csv', 'ndjson'];

const isBlob = (value: unknown): value is Uint8Array => value instanceof Uint8Array;

/** JSON-safe cell: BLOBs as base64, 64-bit integers as numbers when exact, else strings. */
function jsonCell(value: unknown): unknown {
  if (isBlob(value)) return Buffer.from(value).toString('base64');
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return value;
}

function textCell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (isBlob(value)) return `<${value.byteLength} bytes>`;
  return String(value);
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = isBlob(value) ? Buffer.from(value).toString('base64') : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const rowObject = (columns: string[], row: unknown[]) => Object.fromEntries(columns.map((name, i) => [name, jsonCell(row[i])]));

function table({ columns, rows }: QueryResult): string {
  if (columns.length === 0) return '';
  // Cells are one line each and clipped, so a page body never floods the terminal.
  const cells = rows.map((row) => row.map((value) => textCell(value).replace(/\s+/g, ' ').slice(0, 120)));
  const widths = columns.map((name, i) => Math.max(name.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ').trimEnd();
  const footer = `(${rows.length} row${rows.length === 1 ? '' : 's'})`;
  return [line(columns), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line), footer].join('\n') + '\n';
}

export function formatRows(result: QueryResult, format: RowFormat): string {
  const { columns, rows } = result;
  switch (format) {
    case 'table':
      return table(result);
    case 'json':
      return `${JSON.stringify(rows.map((row) => rowObject(columns, row)), null, 2)}\n`;
    case 'ndjson':
      return rows.map((row) => `${JSON.stringify(rowObject(columns, row))}\n`).join('');
    case 'csv':
      return columns.length ? [columns.map(csvCell).join(','), ...rows.map((row) => row.map(csvCell).join(','))].join('\r\n') + '\r\n' : '';
  }
}
