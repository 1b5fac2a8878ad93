/** The charset parameter of a Content-Type, lower-cased, if any. */
export function charsetOf(contentType: string | null): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return match ? match[1]!.toLowerCase() : null;
}

/** Decodes a body for parsing; an unknown charset label falls back to UTF-8 rather than failing the page. */
export function decodeText(body: Uint8Array, charset: string | null): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

export function isHtml(contentType: string | null): boolean {
  return HTML_TYPES.has((contentType ?? '').split(';')[0]!.trim().toLowerCase());
}

export function isCss(contentType: string | null): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'text/css';
}
