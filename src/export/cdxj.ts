import { getSurt } from 'warcio/utils';
import type { WrittenCapture } from './write-warc.js';

// CDXJ as pywb and warcio.js write it: the SURT key, a 14-digit timestamp and
// a JSON block whose numbers are strings, one line per response or revisit.

/** 'YYYYMMDDhhmmss' of a WARC-Date. */
export const timestamp14 = (date: string): string => date.replace(/[-:T]/g, '').slice(0, 14);

/** A CDXJ line without its closing `,"filename":...}`: the same capture goes into WARCs of different names. */
export function cdxjLineStart(capture: WrittenCapture): string {
  const fields: Record<string, string> = { url: capture.url };
  const mime = capture.type === 'revisit' ? 'warc/revisit' : capture.mime;
  if (mime) fields.mime = mime;
  fields.status = String(capture.status);
  fields.digest = capture.digest.slice(capture.digest.indexOf(':') + 1);
  fields.length = String(capture.length);
  fields.offset = String(capture.offset);
  const json = JSON.stringify(fields);
  return `${getSurt(capture.url)} ${timestamp14(capture.date)} ${json.slice(0, -1)}`;
}

/** Ends a line begun by cdxjLineStart with the WARC's file name. */
export const cdxjLine = (start: string, filename: string): string => `${start},"filename":${JSON.stringify(filename)}}\n`;
