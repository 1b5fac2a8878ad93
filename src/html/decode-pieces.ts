/**
 * Bytes decoded per piece. A piece's string stays under V8's large-object size (128 KiB, even
 * two bytes a character), so pieces die young instead of waiting for a full collection.
 */
export const PIECE_BYTES = 32 * 1024;

/**
 * WHATWG index-windows-1252 for 0x80–0x9F; every other byte is its own code point.
 * Node ≥20.18.3 decodes windows-1252 (and so latin1/ascii labels) as ISO-8859-1,
 * turning '€' and smart quotes into C1 controls (nodejs/node#56542, #60888), so it is done here.
 */
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

export function decodeWindows1252(bytes: Uint8Array): string {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return latin1.replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/**
 * Where to end a UTF-8 piece at or before `at`: before the lead byte of a character that
 * `at` would cut. A valid character has at most three continuation bytes; a longer run is
 * invalid and decodes to one U+FFFD a byte wherever it is cut.
 */
function utf8Cut(bytes: Uint8Array, at: number): number {
  for (let back = 0; back <= 3; back++) if (!isContinuation(bytes[at - back]!)) return at - back;
  return at;
}

/**
 * `bytes` decoded with `encoding` (TextDecoder's canonical name) a piece at a time, each
 * piece a whole number of characters, together the same text as one decode of the whole
 * (a BOM is not stripped). UTF-8 is cut at character boundaries so every piece takes
 * TextDecoder's fast path (a streaming decode goes through ICU and yields two-byte strings);
 * windows-1252 is one byte a character; other encodings use TextDecoder's stream mode.
 */
export function* decodePieces(bytes: Uint8Array, encoding: string): Generator<string> {
  if (encoding === 'windows-1252') {
    for (let at = 0; at < bytes.byteLength; at += PIECE_BYTES) yield decodeWindows1252(bytes.subarray(at, at + PIECE_BYTES));
    return;
  }
  const decoder = new TextDecoder(encoding, { ignoreBOM: true });
  if (encoding === 'utf-8') {
    let at = 0;
    while (at < bytes.byteLength) {
      const end = at + PIECE_BYTES >= bytes.byteLength ? bytes.byteLength : utf8Cut(bytes, at + PIECE_BYTES);
      // A cut that would leave nothing (a run of stray continuation bytes) cuts where it is.
      const stop = end > at ? end : at + PIECE_BYTES;
      yield decoder.decode(bytes.subarray(at, stop));
      at = stop;
    }
    return;
  }
  for (let at = 0; at < bytes.byteLength; at += PIECE_BYTES) {
    const last = at + PIECE_BYTES >= bytes.byteLength;
    const piece = decoder.decode(bytes.subarray(at, at + PIECE_BYTES), { stream: !last });
    if (piece !== '') yield piece;
  }
}
