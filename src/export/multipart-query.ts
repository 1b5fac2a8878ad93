import { urlencode } from './form-encoding.js';

// A multipart body as pywb keys it: its parts read as Python's cgi.FieldStorage reads them, each
// `(name, value)` pair urlencoded in order; a file's value is its bytes, a field's its text (UTF-8, a
// bad sequence as U+FFFD). A nested multipart part is not looked into.

/** The body's query, or undefined when the Content-Type names no valid boundary (pywb then keys the bytes). */
export function multipartQuery(contentType: string, body: Buffer): string | undefined {
  const boundary = headerParams(contentType).get('boundary');
  // cgi.valid_boundary
  if (boundary === undefined || !/^[ -~]{0,200}[!-~]$/.test(boundary)) return undefined;
  return urlencode(parts(body, Buffer.from(boundary, 'utf8').toString('latin1')));
}

/** cgi.parse_header's parameters: `;`-separated, names lower-cased, a quoted value unquoted. */
function headerParams(value: string): Map<string, string> {
  const params = new Map<string, string>();
  const pieces: string[] = [];
  let rest = value;
  // A `;` inside quotes does not end a parameter.
  for (let end = 0; rest.length > 0;) {
    end = rest.indexOf(';', end);
    while (end > 0 && (rest.slice(0, end).split('"').length - 1 - (rest.slice(0, end).split('\\"').length - 1)) % 2)
      end = rest.indexOf(';', end + 1);
    if (end < 0) end = rest.length;
    pieces.push(rest.slice(0, end).trim());
    rest = rest.slice(end + 1);
    end = 0;
  }
  for (const piece of pieces.slice(1)) {
    const eq = piece.indexOf('=');
    if (eq < 0) continue;
    let param = piece.slice(eq + 1).trim();
    if (param.length >= 2 && param.startsWith('"') && param.endsWith('"'))
      param = param.slice(1, -1).replaceAll('\\\\', '\\').replaceAll('\\"', '"');
    params.set(piece.slice(0, eq).trim().toLowerCase(), param);
  }
  return params;
}

/** Lines as readline gives them, each with its line end; the body as latin1 (one char a byte). */
function* lines(text: string): Generator<string> {
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    const next = end < 0 ? text.length : end + 1;
    yield text.slice(at, next);
    at = next;
  }
}

/** The parts' names and values, as cgi.FieldStorage.read_multi and read_lines_to_outerboundary read them. */
function parts(body: Buffer, boundary: string): Array<[string, string | Buffer]> {
  const next = `--${boundary}`;
  const last = `${next}--`;
  const reader = lines(body.toString('latin1'));
  const read = (): string | undefined => {
    const line = reader.next();
    return line.done ? undefined : line.value;
  };
  const out: Array<[string, string | Buffer]> = [];
  // Up to the first boundary.
  for (let line = read(); line !== undefined && line.trim() !== next; line = read());
  for (;;) {
    const headers: string[] = [];
    let line: string | undefined;
    while ((line = read()) !== undefined) {
      if (line.trim() === '') break;
      headers.push(line);
    }
    if (line === undefined && headers.length === 0) break;
    const disposition = headerParams(headerValue(headers, 'content-disposition') ?? '');
    // The part's data: the line end before the boundary is the delimiter's, not the data's.
    let data = '';
    let delimiter = '';
    let lineEnded = true;
    let done = false;
    for (;;) {
      let piece = read();
      if (piece === undefined) {
        done = true;
        break;
      }
      if (delimiter === '\r') {
        piece = delimiter + piece;
        delimiter = '';
      }
      if (piece.startsWith('--') && lineEnded) {
        const stripped = piece.replace(/[ \t\n\r\v\f]+$/, '');
        if (stripped === next) break;
        if (stripped === last) {
          done = true;
          break;
        }
      }
      const previous = delimiter;
      if (piece.endsWith('\r\n')) [delimiter, piece, lineEnded] = ['\r\n', piece.slice(0, -2), true];
      else if (piece.endsWith('\n')) [delimiter, piece, lineEnded] = ['\n', piece.slice(0, -1), true];
      else if (piece.endsWith('\r')) [delimiter, piece, lineEnded] = ['\r', piece.slice(0, -1), false];
      else [delimiter, lineEnded] = ['', false];
      data += previous + piece;
    }
    const bytes = Buffer.from(data, 'latin1');
    const isFile = disposition.has('filename');
    out.push([disposition.get('name') ?? 'None', isFile ? bytes : bytes.toString('utf8')]);
    if (done) break;
  }
  return out;
}

/** A header's value among a part's header lines (as received, latin1), the first if repeated. */
function headerValue(headers: string[], name: string): string | undefined {
  for (const line of headers) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) {
      return Buffer.from(line.slice(colon + 1).trim(), 'latin1').toString('utf8');
    }
  }
  return undefined;
}
