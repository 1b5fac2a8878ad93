import { createReadStream } from 'node:fs';
import { WARCParser } from 'warcio';

/** One WARC record as read back by warcio: its header fields, its raw block, where it sits in the file. */
export interface ReadRecord {
  type: string;
  /** WARC header fields, names as written. */
  fields: Map<string, string>;
  field(name: string): string | undefined;
  /** The block, byte for byte (an HTTP message for request, response and revisit records). */
  block: Buffer;
  /** For HTTP records: the header part (status or request line, headers, blank line) and the payload after it. */
  httpHead: Buffer | undefined;
  payload: Buffer | undefined;
  /** warcio's own reading of the HTTP message. */
  httpStatus: number | undefined;
  httpHeaders: Array<[string, string]> | undefined;
  offset: number;
  length: number;
}

const HTTP_TYPES = new Set(['request', 'response', 'revisit']);

/** Reads every record of a (gzipped) WARC file, or `limit` records from `start`. */
export async function readWarc(
  path: string,
  { start = 0, limit = Infinity }: { start?: number; limit?: number } = {},
): Promise<ReadRecord[]> {
  const raw = new WARCParser(createReadStream(path, { start }), { parseHttp: false, keepHeadersCase: true });
  const parsed = new WARCParser(createReadStream(path, { start }), { parseHttp: true });
  const records: ReadRecord[] = [];
  for await (const record of raw) {
    const block = Buffer.from(await record.readFully());
    const fields = new Map<string, string>(record.warcHeaders.headers as Iterable<[string, string]>);
    const http = (await parsed.parse())!;
    const httpPart = HTTP_TYPES.has(record.warcType ?? '') ? block.indexOf('\r\n\r\n') : -1;
    records.push({
      type: record.warcType ?? '',
      fields,
      field: (name) => fields.get(name),
      block,
      httpHead: httpPart >= 0 ? block.subarray(0, httpPart + 4) : undefined,
      payload: httpPart >= 0 ? block.subarray(httpPart + 4) : undefined,
      httpStatus: http.httpHeaders ? Number(http.httpHeaders.statusCode) : undefined,
      httpHeaders: http.httpHeaders ? [...(http.httpHeaders.headers as Iterable<[string, string]>)] : undefined,
      offset: raw.offset + start,
      length: raw.recordLength,
    });
    await http.readFully();
    if (records.length >= limit) break;
  }
  return records;
}
