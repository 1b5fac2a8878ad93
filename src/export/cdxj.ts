import { surt } from '../url/index.js';
import { requestQuery } from './request-query.js';
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
    const query = requestQuery(capture.url, capture.method, capture.requestBody, capture.requestContentType);
    fields.method = capture.method;
    if (query.requestBody !== undefined) fields.requestBody = query.requestBody;
    keyUrl = query.keyUrl;
  }
  const json = JSON.stringify(fields);
  return `${cdxjKey(keyUrl)} ${timestamp14(capture.date)} ${json.slice(0, -1)}`;
}

/** The SURT key; a URL surt refuses (a port out of range) is its own key, as cdxj-indexer keys it. */
function cdxjKey(url: string): string {
  try {
    return surt(url);
  } catch {
    return url;
  }
}

/** Ends a line begun by cdxjLineStart with the WARC's file name. */
export const cdxjLine = (start: string, filename: string): string => `${start},"filename":${JSON.stringify(filename)}}\n`;
