import type { WarcEntry, WarcRecord } from './warc-reader.js';

/** A response (or revisit) record with the request record that asked for it, when the WARC holds one. */
export interface Exchange {
  response: WarcRecord;
  request?: WarcRecord;
}

export type PairedEntry = Exclude<WarcEntry, { record: WarcRecord }> | { exchange: Exchange } | { other: WarcRecord };

/** Requests waiting for their response: writers put a pair next to each other, so a few are enough. */
const WAITING_REQUESTS = 32;

const ids = (value: string | undefined) => (value ? value.split(/[\s,]+/).filter(Boolean) : []);
export const targetUri = (record: WarcRecord) => record.fields.get('warc-target-uri')?.replace(/^<(.*)>$/, '$1');

/** A record that answers a URL: a response, a revisit, or a resource of an http(s) URL (a payload stored without its HTTP message). */
const isAnswer = (record: WarcRecord) =>
  record.type === 'response' || record.type === 'revisit' || (record.type === 'resource' && /^https?:/i.test(targetUri(record) ?? ''));

/**
 * Pairs each response with its request. wget and Heritrix write the request
 * first, warcio and Browsertrix the response first; either links them by
 * WARC-Concurrent-To or writes them next to each other for one URI. A
 * response waits for the next record only, so at most two are held.
 */
export async function* pairExchanges(entries: AsyncIterable<WarcEntry>): AsyncGenerator<PairedEntry> {
  const requests: WarcRecord[] = [];
  let waiting: WarcRecord | undefined;
  const matches = (request: WarcRecord, response: WarcRecord) => {
    const requestId = request.fields.get('warc-record-id');
    const responseId = response.fields.get('warc-record-id');
    if (requestId && ids(response.fields.get('warc-concurrent-to')).includes(requestId)) return true;
    if (responseId && ids(request.fields.get('warc-concurrent-to')).includes(responseId)) return true;
    return targetUri(request) === targetUri(response);
  };
  for await (const entry of entries) {
    if (!('record' in entry)) {
      if (waiting) yield { exchange: { response: waiting } };
      waiting = undefined;
      yield entry;
      continue;
    }
    const { record } = entry;
    if (record.type === 'request') {
      if (waiting && matches(record, waiting)) {
        yield { exchange: { response: waiting, request: record } };
        waiting = undefined;
      } else {
        requests.push(record);
        if (requests.length > WAITING_REQUESTS) requests.shift();
      }
      continue;
    }
    if (waiting) yield { exchange: { response: waiting } };
    waiting = undefined;
    if (!isAnswer(record)) {
      yield { other: record };
      continue;
    }
    // The newest match: a URI fetched twice has two requests.
    let at = requests.length - 1;
    while (at >= 0 && !matches(requests[at]!, record)) at--;
    if (at < 0) {
      waiting = record;
      continue;
    }
    const [request] = requests.splice(at, 1);
    yield { exchange: { response: record, request: request! } };
  }
  if (waiting) yield { exchange: { response: waiting } };
}
