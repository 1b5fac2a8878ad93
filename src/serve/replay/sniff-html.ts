/**
 * Whether a body served without a Content-Type would be rendered as HTML by a browser: the HTML
 * patterns of the WHATWG MIME Sniffing standard (§7.1), after leading whitespace. Replay must
 * rewrite such a body, or its links would lead to the live site.
 */
export function looksLikeHtml(body: Uint8Array): boolean {
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, 512)).toString('latin1');
  return /^[\t\n\f\r ]*<(?:!--|(?:!doctype html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p)[ >])/i.test(head);
}
