import { describe, expect, it } from 'vitest';
import { decodePieces, PIECE_BYTES } from '../../src/html/decode-pieces.js';
import { extractPage, findBase, MAX_ATTRIBUTE_CHARS, MAX_TEXT_CHARS, mentionsBase, type FoundLink } from '../../src/html/index.js';
import { decodeHtml, decodeHtmlPieces } from '../../src/html/sniff-charset.js';

/** A page with every construct the scanner reads, and a few that cross any cut: entities, multi-byte text, raw text. */
const PAGE = [
  '<!doctype html><html><head><title>The  &amp; title é</title>',
  '<base href="https://example.com/dir/">',
  '<meta name="description" content="A page &quot;about&quot; things">',
  '<meta name="robots" content="nofollow">',
  '<link rel="canonical" href="/canonical"><link rel="stylesheet" href="/s.css">',
  '<style>body { background: url("/bg.png") } .x { background: url(/x&amp;y.png) }</style>',
  '<script>var a = "<a href=/not-a-link>"; if (a < b) {}</script>',
  '</head><body>',
  '<nav><a href="/nav">Nav words</a></nav><div role="navigation"><div>inner</div>side words</div>',
  '<h1>Heading  one<a class="headerlink" href="#h">¶</a></h1><p>First para with <b>bold</b>words &copy; and &#x4e2d;文 text.</p>',
  '<!-- <a href="/in-comment">x</a> -->',
  '<a href="/a?x=1&amp;y=2" rel="nofollow">link a</a><img src="/i.png" srcset="/i1.png 1x, /i2.png 2x">',
  '<div style="background-image: url(/div.png)">styled</div><textarea><a href="/in-textarea"></a></textarea>',
  '<svg><title>not the title</title></svg><h2>Second</h2><p>Long paragraph ',
  'word '.repeat(60),
  '</p><a href="/b">b</a><iframe src="/frame.html"></iframe></body></html>',
].join('');

function read(html: string | string[]) {
  const links: FoundLink[] = [];
  const facts = extractPage(html, (href, kind, nofollow) => links.push({ href, kind, nofollow }), { text: true });
  return { facts, links };
}

describe('extractPage in pieces', () => {
  it('reads a page cut in two anywhere as it reads it whole', () => {
    const whole = read(PAGE);
    expect(whole.links.length).toBeGreaterThan(8);
    expect(whole.facts.text!.body).toMatch(/^Heading one First para/);
    for (let cut = 0; cut <= PAGE.length; cut++) {
      expect(read([PAGE.slice(0, cut), PAGE.slice(cut)]), `cut at ${cut}`).toEqual(whole);
      expect(findBase([PAGE.slice(0, cut), PAGE.slice(cut)])).toBe('https://example.com/dir/');
    }
  });

  it('reads a page cut in many pieces of a few dozen characters as it reads it whole', () => {
    const whole = read(PAGE);
    for (const size of [64, 97, 128, 301]) {
      const pieces: string[] = [];
      for (let at = 0; at < PAGE.length; at += size) pieces.push(PAGE.slice(at, at + size));
      expect(read(pieces), `pieces of ${size}`).toEqual(whole);
    }
  });

  it('keeps at most the text cap of one enormous text node, and of an enormous title', () => {
    const words = 'word '.repeat((3 * MAX_TEXT_CHARS) / 5);
    const pieces = ['<html><head><title>', words, '</title></head><body><p>', words, '</p></body></html>'].flatMap((part) => {
      const out: string[] = [];
      for (let at = 0; at < part.length; at += 32 * 1024) out.push(part.slice(at, at + 32 * 1024));
      return out;
    });
    const { facts } = read(pieces);
    expect(facts.text!.body.length).toBe(MAX_TEXT_CHARS);
    expect(facts.text!.body.startsWith('word word')).toBe(true);
    expect(facts.title!.length).toBeLessThanOrEqual(2 * MAX_TEXT_CHARS);
  });

  it('collapses whitespace in text longer than one slice of the collapse as in one go', () => {
    const runs = ['  ', '\n\t ', ' ', '\r\n'];
    const words: string[] = [];
    for (let i = 0; i < 30_000; i++) words.push(`w${i}`, runs[i % runs.length]!);
    // A run of whitespace longer than a slice, and runs straddling the slices' ends.
    words.splice(5000, 0, ' '.repeat(70 * 1024));
    const raw = words.join('');
    expect(read(`<p>${raw}</p>`).facts.text!.body).toBe(raw.replace(/[\t\n\f\r ]+/g, ' ').trim());
    expect(read(`<title>${raw}</title>`).facts.title).toBe(raw.replace(/[\t\n\f\r ]+/g, ' ').trim());
  });

  it('passes over an attribute value longer than MAX_ATTRIBUTE_CHARS as if absent, and reads the next tag', () => {
    const long = 'a'.repeat(MAX_ATTRIBUTE_CHARS + 1);
    const { links } = read([`<a href="/${long.slice(0, 1000)}`, `${long.slice(1000)}">x</a><a href="/next">n</a>`]);
    expect(links.map((link) => link.href)).toEqual(['/next']);
    const fits = 'b'.repeat(MAX_ATTRIBUTE_CHARS - 1);
    expect(read(`<a href="/${fits}">x</a>`).links.map((link) => link.href)).toEqual([`/${fits}`]);
  });
});

describe('decodePieces', () => {
  /** A body whose multi-byte characters straddle the piece boundaries at every offset. */
  const around = (unit: number[], filler = 0x61) => {
    const parts: number[] = [];
    for (let shift = 0; shift < 4; shift++) {
      while ((parts.length + shift) % PIECE_BYTES !== 0) parts.push(filler);
      parts.push(...unit);
    }
    parts.push(...unit);
    return Buffer.from(parts);
  };

  it('decodes UTF-8 cut at character boundaries, invalid bytes included, as one decode does', () => {
    for (const unit of [
      [0xe4, 0xb8, 0xad],
      [0xf0, 0x9f, 0x98, 0x80],
      [0xc3, 0xa9],
      [0x80, 0x80, 0x80, 0x80, 0x80],
      [0xe4, 0xb8],
      [0xf0, 0x9f, 0x98, 0x41],
    ]) {
      const body = around(unit);
      const pieces = [...decodePieces(body, 'utf-8')];
      expect(pieces.length).toBeGreaterThan(3);
      expect(pieces.join('')).toBe(new TextDecoder('utf-8', { ignoreBOM: true }).decode(body));
    }
  });

  it('decodes windows-1252, GBK, Shift_JIS and UTF-16 as one decode does', () => {
    expect([...decodePieces(around([0x80, 0x93]), 'windows-1252')].join('')).toBe(
      decodeHtml(around([0x80, 0x93]), 'text/html; charset=windows-1252').text,
    );
    for (const [encoding, unit] of [
      ['gbk', [0xd6, 0xd0]],
      ['shift_jis', [0x93, 0xfa]],
      ['utf-16le', [0x2d, 0x4e]],
    ] as const) {
      const body = around([...unit], encoding === 'utf-16le' ? 0x20 : 0x61);
      expect([...decodePieces(body, encoding)].join(''), encoding).toBe(new TextDecoder(encoding).decode(body));
    }
  });

  it("gives decodeHtml's text and encoding, BOM dropped", () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), around([0xe4, 0xb8, 0xad])]);
    const pieces = decodeHtmlPieces(body, null);
    expect({ text: [...pieces.pieces()].join(''), encoding: pieces.encoding, source: pieces.source }).toEqual(decodeHtml(body, null));
    const latin = around([0xe9]);
    const fallback = decodeHtmlPieces(latin, null);
    expect({ text: [...fallback.pieces()].join(''), encoding: fallback.encoding, source: fallback.source }).toEqual(
      decodeHtml(latin, null),
    );
  });

  it('mentionsBase finds <base in any case in ASCII-compatible bytes only where it is', () => {
    expect(mentionsBase(Buffer.from('<p>x</p><BaSe href=/>'), 'utf-8')).toBe(true);
    expect(mentionsBase(Buffer.from('<p>base</p><bas'), 'utf-8')).toBe(false);
    expect(mentionsBase(Buffer.from('<p>x</p>'), 'utf-16le')).toBe(true);
  });
});
