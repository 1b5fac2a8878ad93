import { createHash } from 'node:crypto';

/** Longest name of one path segment, in characters: well under every file system's 255 bytes. */
const MAX_SEGMENT = 80;
/** Deepest path kept; deeper segments are folded into the last one. */
const MAX_DEPTH = 12;

/** A URL path segment as a safe file name: letters, digits, `.`, `_`, `-`; never `.`, `..` or hidden. */
function safeSegment(raw: string): string {
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // A malformed escape is kept as written, then sanitised.
  }
  const cleaned = decoded
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/^[.-]+/, '')
    .replace(/-+$/, '');
  return [...cleaned].slice(0, MAX_SEGMENT).join('') || '_';
}

const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

/**
 * Where a page's Markdown goes under the export directory, relative and with `/`: its host, then its
 * path segments sanitised (so no `..`, no absolute path, no hidden or oversized name), `index.md` for a
 * directory URL, a hash of the query when there is one. `taken` (lower-cased, for case-insensitive file
 * systems) resolves collisions with `-2`, `-3`, ...
 */
export function markdownPath(url: string, taken: Set<string>): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  const host = parsed ? safeSegment(parsed.host.replace(/:/g, '_')) : 'other';
  const parts = parsed ? parsed.pathname.split('/') : [url];
  const directoryUrl = parts.length === 0 || parts[parts.length - 1] === '';
  let segments = parts.filter((part) => part !== '').map(safeSegment);
  if (directoryUrl) segments.push('index');
  if (segments.length > MAX_DEPTH) segments = [...segments.slice(0, MAX_DEPTH - 1), safeSegment(segments.slice(MAX_DEPTH - 1).join('-'))];
  // A directory named like a page's file (`a.md/`) would collide with that file.
  const dirs = segments.slice(0, -1).map((dir) => (/\.md$/i.test(dir) ? `${dir}_` : dir));
  let name = segments[segments.length - 1]!.replace(/\.(html?|php|aspx?|jsp)$/i, '');
  if (parsed?.search) name = `${name}-${shortHash(parsed.search)}`;
  name = [...name].slice(0, MAX_SEGMENT).join('') || '_';
  const stem = [host, ...dirs, name].join('/');
  let path = `${stem}.md`;
  for (let n = 2; taken.has(path.toLowerCase()); n += 1) path = `${stem}-${n}.md`;
  taken.add(path.toLowerCase());
  return path;
}
