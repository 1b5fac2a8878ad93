export type RowFormat = 'table' | 'json' | 'csv' | 'ndjson';
export const ROW_FORMATS: RowFormat[] = ['table', 'json', 'csv', 'ndjson'];

/** Rows are formatted as they arrive, so output of any length takes bounded memory. */
export interface RowStream {
  /** The text for one batch of rows; may be empty while a table measures its columns. */
  rows(rows: unknown[][]): string;
  /** The text that ends the output (a footer, a closing bracket), after the last batch. */
  end(): string;
}

/** A table's column widths come from this many first rows; later rows use them (a longer cell widens only its row). */
export const TABLE_SAMPLE_ROWS = 1000;

const isBlob = (value: unknown): value is Uint8Array => value instanceof Uint8Array;

/** JSON-safe cell: BLOBs as base64, 64-bit integers as numbers when exact, else strings. */
function jsonCell(value: unknown): unknown {
  if (isBlob(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
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
  const text = isBlob(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const rowObject = (columns: string[], row: unknown[]) => Object.fromEntries(columns.map((name, i) => [name, jsonCell(row[i])]));

function tableStream(columns: string[]): RowStream {
  let widths: number[] | undefined;
  let sample: string[][] = [];
  let count = 0;
  // Cells are one line each and clipped, so a page body never floods the terminal.
  const cells = (row: unknown[]) => row.map((value) => textCell(value).replace(/\s+/g, ' ').slice(0, 120));
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths![i]!))
      .join('  ')
      .trimEnd() + '\n';
  const flushSample = () => {
    widths = columns.map((name) => name.length);
    for (const row of sample) row.forEach((cell, i) => (widths![i] = Math.max(widths![i]!, cell.length)));
    const text = line(columns) + line(widths.map((width) => '-'.repeat(width))) + sample.map(line).join('');
    sample = [];
    return text;
  };
  return {
    rows(rows) {
      count += rows.length;
      if (widths) return rows.map((row) => line(cells(row))).join('');
      sample.push(...rows.map(cells));
      return sample.length >= TABLE_SAMPLE_ROWS ? flushSample() : '';
    },
    end() {
      if (columns.length === 0) return '';
      return (widths ? '' : flushSample()) + `(${count} row${count === 1 ? '' : 's'})\n`;
    },
  };
}

/** The same text as JSON.stringify(allRows, null, 2), one row at a time. */
function jsonStream(columns: string[]): RowStream {
  let started = false;
  return {
    rows(rows) {
      if (rows.length === 0) return '';
      const text = rows.map((row) => `  ${JSON.stringify(rowObject(columns, row), null, 2).replace(/\n/g, '\n  ')}`).join(',\n');
      const lead = started ? ',\n' : '[\n';
      started = true;
      return lead + text;
    },
    end: () => (started ? '\n]\n' : '[]\n'),
  };
}

function csvStream(columns: string[]): RowStream {
  const header = columns.length ? `${columns.map(csvCell).join(',')}\r\n` : '';
  let started = false;
  // The header waits for the first rows, so a query that fails at once prints nothing on stdout.
  const lead = () => (started ? '' : ((started = true), header));
  return {
    rows: (rows) => (rows.length ? lead() + rows.map((row) => `${row.map(csvCell).join(',')}\r\n`).join('') : ''),
    end: lead,
  };
}

function ndjsonStream(columns: string[]): RowStream {
  return {
    rows: (rows) => rows.map((row) => `${JSON.stringify(rowObject(columns, row))}\n`).join(''),
    end: () => '',
  };
}

export function rowStream(columns: string[], format: RowFormat): RowStream {
  switch (format) {
    case 'table':
      return tableStream(columns);
    case 'json':
      return jsonStream(columns);
    case 'csv':
      return csvStream(columns);
    case 'ndjson':
      return ndjsonStream(columns);
  }
}
