import type { SetAsideRevisit } from '../storage/writer/index.js';
import type { Exchange } from './pair-exchanges.js';
import type { WarcRecord } from './warc-reader.js';

// A revisit and its request as a row of the TEMP table that keeps them until the last file is read, and back.

const fieldsJson = (record: WarcRecord) => JSON.stringify([...record.fields]);

/** The revisit exchange, read from `file`, as it is set aside. */
export function setAsideOf(file: string, exchange: Exchange): Omit<SetAsideRevisit, 'seq'> {
  const { response, request } = exchange;
  return {
    file,
    offset: response.offset,
    fields: fieldsJson(response),
    content: response.content,
    request: request ? { fields: fieldsJson(request), content: request.content, cutFrom: request.cutFrom ?? null } : null,
  };
}

/** The exchange as it was read. */
export function exchangeOf(kept: SetAsideRevisit): Exchange {
  const response: WarcRecord = {
    offset: kept.offset,
    fields: new Map(JSON.parse(kept.fields) as [string, string][]),
    type: 'revisit',
    content: kept.content,
  };
  if (!kept.request) return { response };
  const request: WarcRecord = {
    offset: kept.offset,
    fields: new Map(JSON.parse(kept.request.fields) as [string, string][]),
    type: 'request',
    content: kept.request.content,
  };
  if (kept.request.cutFrom !== null) request.cutFrom = kept.request.cutFrom;
  return { response, request };
}
