import { randomUUID } from 'node:crypto';

// WARC records and HTTP messages written out by hand, byte for byte, as any WARC writer may make them.

/** A WARC record written out by hand, as any writer may: the fields given, then the block. */
export function rawRecord(type: string, url: string, date: string, block: string | Buffer, extra: Record<string, string> = {}): Buffer {
  const body = typeof block === 'string' ? Buffer.from(block, 'latin1') : block;
  const fields = {
    'WARC-Type': type,
    'WARC-Record-ID': `<urn:uuid:${randomUUID()}>`,
    'WARC-Date': date,
    'WARC-Target-URI': url,
    'Content-Type': `application/http; msgtype=${type}`,
    ...extra,
    'Content-Length': String(body.byteLength),
  };
  const head = `WARC/1.1\r\n${Object.entries(fields)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body, Buffer.from('\r\n\r\n')]);
}

/** A 200 with this body. */
export const httpResponse = (contentType: string, body: string) =>
  `HTTP/1.1 200 OK\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
/** A request to site.example; a body is sent with its type and length. */
export const httpRequest = (method: string, target: string, body = '', contentType?: string) =>
  `${method} ${target} HTTP/1.1\r\nHost: site.example\r\n${contentType ? `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n` : ''}\r\n${body}`;
