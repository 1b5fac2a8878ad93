import { surt } from '../url/index.js';
import type { WrittenCapture } from './write-warc.js';

// CDXJ as pywb and cdxj-indexer write it: the SURT key Python's surt gives (see src/url/surt.ts), a 14-digit timestamp and
// a JSON block whose numbers are strings, one line per response, revisit or
// resource (a screenshot, keyed by its `urn:view:` URI, as Browsertrix's are).

/** 'YYYYMMDDhhmmss' of a WARC-Date. */
export const timestamp14 = (date: string): string => date.replace(/[-:T]/g, '').slice(0, 14);

/** A CDXJ line without its closing `,"filename":...}`: the same capture goes into WARCs of different names. */
export function cdxjLineStart(capture: WrittenCapture): string {
  const fields: Record<string, string> = { url: capture.url };
  const mime = capture.type === 'revisit' ? 'warc/revisit' : capture.mime;
  if (mime) fields.mime = mime;
  // As warcio's indexer: a resource record (a screenshot) holds no HTTP message, so no status.
  if (capture.status !== undefined) fields.status = String(capture.status);
  fields.digest = capture.digest.slice(capture.digest.indexOf(':') + 1);
  fields.length = String(capture.length);
  fields.offset = String(capture.offset);
  let keyUrl = capture.url;
  if (capture.method !== undefined) {
    const query = methodQuery(capture.method, capture.requestBody, capture.requestContentType);
    fields.method = capture.method;
    if (capture.requestBody) fields.requestBody = query.slice(query.indexOf('&') + 1);
    keyUrl += (keyUrl.includes('?') ? '&' : '?') + query;
  }
  const json = JSON.stringify(fields);
  return `${surt(keyUrl)} ${timestamp14(capture.date)} ${json.slice(0, -1)}`;
}

/**
 * What pywb's indexer (cdxj-indexer, `--post-append`) adds to the URL of a request other than GET
 * before making its key, and replay tools compute the same way to find it: `__wb_method=post`, then a
 * form's fields decoded, or `__wb_post_data=` and the body in base64. So a POST's answer never has the
 * key of a GET of its URL, and two POSTs with different bodies have different keys.
 */
function methodQuery(method: string, body: Buffer | undefined, contentType: string | undefined): string {
  const query = `__wb_method=${method.toLowerCase()}`;
  if (!body || body.byteLength === 0) return query;
  if ((contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
    try {
      return `${query}&${decodeURIComponent(text.replace(/\+/g, ' '))}`;
    } catch {
      // A malformed %-escape: the body as bytes, as pywb does for a form it cannot decode.
    }
  }
  return `${query}&__wb_post_data=${body.toString('base64')}`;
}

/** Ends a line begun by cdxjLineStart with the WARC's file name. */
export const cdxjLine = (start: string, filename: string): string => `${start},"filename":${JSON.stringify(filename)}}\n`;
