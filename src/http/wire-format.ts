/** The request line and header block undici wrote, as its `undici:client:sendHeaders` message gives them. */
export interface RequestHead {
  method: string;
  target: string;
  /** 'Name: value' lines each ending in CRLF, without the request line or the closing blank line. */
  headers: Buffer;
}

/** What stands in the archive for the value of a request header that may hold a secret. */
export const NOT_STORED = '[not stored]';

/**
 * Splits the head undici is about to write ('GET /a?b HTTP/1.1\r\nhost: …\r\n'):
 * undici adds the blank line after it when it writes, so what is given is
 * exactly the request line and header block on the wire. The values of
 * headers named in `secret` (lower case) are replaced by NOT_STORED: the
 * archive keeps that they were sent, never what they said.
 */
export function readRequestHead(head: string, secret: ReadonlySet<string>): RequestHead {
  const lineEnd = head.indexOf('\r\n');
  const line = lineEnd === -1 ? head : head.slice(0, lineEnd);
  const space = line.indexOf(' ');
  const lastSpace = line.lastIndexOf(' ');
  const block = lineEnd === -1 ? '' : head.slice(lineEnd + 2);
  // undici writes header values as Latin-1, one byte per character.
  const headers = Buffer.from(secret.size ? withoutSecrets(block, secret) : block, 'latin1');
  return { method: line.slice(0, space), target: line.slice(space + 1, lastSpace), headers };
}

function withoutSecrets(block: string, secret: ReadonlySet<string>): string {
  let kept = '';
  for (const line of block.split('\r\n')) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    kept += colon > 0 && secret.has(line.slice(0, colon).toLowerCase()) ? `${line.slice(0, colon)}: ${NOT_STORED}\r\n` : `${line}\r\n`;
  }
  return kept;
}

const COLON_SPACE = Buffer.from(': ');
const CRLF = Buffer.from('\r\n');

/**
 * A response header block from undici's raw headers (name, value, name,
 * value … as Buffers of the bytes received): 'Name: value' lines each ending
 * in CRLF, in order, with case and repeats kept. The parser drops the
 * whitespace around a value and joins folded lines, so each line has one
 * space after its colon.
 */
export function headerBlock(raw: readonly (Buffer | string)[]): Buffer {
  const parts: Buffer[] = [];
  let size = 0;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = toBuffer(raw[i]!);
    const value = toBuffer(raw[i + 1]!);
    parts.push(name, COLON_SPACE, value, CRLF);
    size += name.byteLength + value.byteLength + 4;
  }
  return Buffer.concat(parts, size);
}

const toBuffer = (part: Buffer | string) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : part);

interface Llhttp {
  llhttp: { llhttp_get_http_major(ptr: number): number; llhttp_get_http_minor(ptr: number): number };
  ptr: number;
}

let parserKey: symbol | undefined;

/**
 * The HTTP version on the status line of the response being parsed on
 * `socket`. undici does not hand it to a handler, so it is read from the
 * connection's parser (llhttp) while that parser is inside the response's
 * headers; where undici's internals do not have the expected shape, the
 * version undici speaks, HTTP/1.1, is assumed.
 */
export function httpVersionOn(socket: object | undefined): string {
  if (!socket) return 'HTTP/1.1';
  let parser = parserKey && (socket as Record<symbol, unknown>)[parserKey];
  if (!parser) {
    parserKey = Object.getOwnPropertySymbols(socket).find((key) => key.description === 'parser');
    parser = parserKey && (socket as Record<symbol, unknown>)[parserKey];
  }
  const llhttp = (parser as Partial<Llhttp> | undefined)?.llhttp;
  const ptr = (parser as Partial<Llhttp> | undefined)?.ptr;
  if (typeof llhttp?.llhttp_get_http_major !== 'function' || typeof ptr !== 'number') return 'HTTP/1.1';
  const major = llhttp.llhttp_get_http_major(ptr);
  const minor = llhttp.llhttp_get_http_minor(ptr);
  return Number.isInteger(major) && Number.isInteger(minor) ? `HTTP/${major}.${minor}` : 'HTTP/1.1';
}
