import { postToGetUrl } from 'warcio/utils';
import { unquotePlus } from './form-encoding.js';
import { jsonQuery } from './json-query.js';
import { multipartQuery } from './multipart-query.js';

// How replay tools key the answer to a request other than GET: its URL with `__wb_method=<METHOD>` and,
// for a POST or PUT, its body as query parameters appended, then made a SURT. The key is pywb's
// (MethodQueryCanonicalizer in pywb/warcserver/inputrequest.py, which pywb also runs on the request a
// replayed page sends, so the two must agree; cdxj-indexer --post-append computes the same but for
// JSON's true/false/null and whole floats); the `requestBody` a CDXJ line carries is what warcio.js's
// indexer writes there, which ReplayWeb.page appends to the URL to match its own reading of the request.

/** pywb keeps this much of a body's query. */
const MAX_QUERY_LENGTH = 4096;

export interface RequestQuery {
  /** The URL to make the CDXJ key of. */
  keyUrl: string;
  /** The CDXJ line's `requestBody`, when there is a body to say. */
  requestBody: string | undefined;
}

/** The key URL and requestBody of a request of `method` to `url` that sent `body` with `contentType`. */
export function requestQuery(url: string, method: string, body: Buffer | undefined, contentType: string | undefined): RequestQuery {
  const upper = method.toUpperCase();
  const query = upper === 'POST' || upper === 'PUT' ? bodyQuery(body ?? Buffer.alloc(0), contentType ?? '') : '';
  const keyUrl = `${url}${url.includes('?') ? '&' : '?'}__wb_method=${upper}${query ? `&${query}` : ''}`;
  return { keyUrl, requestBody: body && body.byteLength > 0 ? warcioRequestBody(url, upper, body, contentType) : undefined };
}

/** MethodQueryCanonicalizer's query: by the Content-Type's prefix, as pywb matches it (case and all). */
function bodyQuery(body: Buffer, contentType: string): string {
  if (body.byteLength === 0) return '';
  let query: string;
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    const text = utf8(body);
    query = text === undefined ? binary(body) : unquotePlus(text);
  } else if (contentType.startsWith('multipart/')) {
    query = multipartQuery(contentType, body) ?? binary(body);
  } else if (contentType.startsWith('application/json')) {
    // pywb gives up on a body that is no JSON: the key is the method's alone.
    query = jsonQuery(body) ?? '';
  } else if (contentType.startsWith('text/plain')) {
    query = jsonQuery(body) ?? binary(body);
  } else {
    query = binary(body);
  }
  // Python slices characters, not UTF-16 units.
  const chars = Array.from(query);
  return chars.length > MAX_QUERY_LENGTH ? chars.slice(0, MAX_QUERY_LENGTH).join('') : query;
}

const binary = (body: Buffer): string => `__wb_post_data=${body.toString('base64')}`;

function utf8(body: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return undefined;
  }
}

/** What warcio.js's postToGetUrl reads the body as (its indexer's `requestBody`), or undefined where it reads nothing. */
function warcioRequestBody(url: string, method: string, body: Buffer, contentType: string | undefined): string | undefined {
  const request: { url: string; method: string; headers: Map<string, string>; postData: Uint8Array; requestBody?: unknown } = {
    url,
    method,
    headers: new Map(contentType ? [['content-type', contentType]] : []),
    postData: new Uint8Array(body),
  };
  try {
    return postToGetUrl(request, MAX_QUERY_LENGTH) && typeof request.requestBody === 'string' ? request.requestBody : undefined;
  } catch {
    return undefined;
  }
}
