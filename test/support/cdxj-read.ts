import { readFileSync } from 'node:fs';

/** One line of a CDXJ index: its SURT key and its JSON fields. */
export interface CdxjLine {
  key: string;
  json: Record<string, string>;
}

/** The lines of a CDXJ file, in order. */
export function readCdxj(path: string): CdxjLine[] {
  return readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => ({ key: line.split(' ')[0]!, json: JSON.parse(line.slice(line.indexOf('{'))) as Record<string, string> }));
}

/** Each URL of a CDXJ file with its key (the last line's, for a URL indexed more than once). */
export function cdxjKeysByUrl(path: string): Map<string, string> {
  return new Map(readCdxj(path).map((line) => [line.json.url!, line.key]));
}
