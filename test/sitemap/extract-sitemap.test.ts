import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { extractSitemap as forEachLoc, isGzip } from '../../src/pipeline/sitemap/extract-sitemap.js';

/** The entries in document order, pages and sitemaps apart. */
const extractSitemap = (xml: string) => {
  const entries = { pages: [] as string[], sitemaps: [] as string[] };
  forEachLoc(xml, (entry, loc) => (entry === 'page' ? entries.pages : entries.sitemaps).push(loc));
  return entries;
};

describe('extractSitemap', () => {
  it('reads the pages of a urlset', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <url><loc>https://example.com/</loc><lastmod>2024-01-01</lastmod></url>
        <url>
          <loc>
            https://example.com/about
          </loc>
          <changefreq>weekly</changefreq>
        </url>
      </urlset>`;
    expect(extractSitemap(xml)).toEqual({ pages: ['https://example.com/', 'https://example.com/about'], sitemaps: [] });
  });

  it('reads the sitemaps of a sitemap index', () => {
    const xml = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc>https://example.com/sitemap-1.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
        <sitemap><loc>https://example.com/sitemap-2.xml.gz</loc></sitemap>
      </sitemapindex>`;
    expect(extractSitemap(xml)).toEqual({
      pages: [],
      sitemaps: ['https://example.com/sitemap-1.xml', 'https://example.com/sitemap-2.xml.gz'],
    });
  });

  it('decodes XML entities and character references', () => {
    const xml = '<urlset><url><loc>https://example.com/?a=1&amp;b=2&#38;c=&#x33;&apos;</loc></url></urlset>';
    expect(extractSitemap(xml).pages).toEqual(["https://example.com/?a=1&b=2&c=3'"]);
  });

  it('reads CDATA inside loc', () => {
    const xml = '<urlset><url><loc><![CDATA[ https://example.com/?a=1&b=2 ]]></loc></url></urlset>';
    expect(extractSitemap(xml).pages).toEqual(['https://example.com/?a=1&b=2']);
  });

  it('strips namespace prefixes from every element', () => {
    const xml = `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sm:url><sm:loc>https://example.com/prefixed</sm:loc></sm:url>
      </sm:urlset>
      <ns:sitemapindex><ns:sitemap><ns:loc>https://example.com/s.xml</ns:loc></ns:sitemap></ns:sitemapindex>`;
    expect(extractSitemap(xml)).toEqual({ pages: ['https://example.com/prefixed'], sitemaps: ['https://example.com/s.xml'] });
  });

  it('ignores loc elements of extensions such as image:loc', () => {
    const xml = `<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
        <url>
          <loc>https://example.com/page</loc>
          <image:image><image:loc>https://example.com/photo.jpg</image:loc></image:image>
        </url>
      </urlset>`;
    expect(extractSitemap(xml).pages).toEqual(['https://example.com/page']);
  });

  it('ignores a loc outside url and sitemap, and empty locs', () => {
    const xml = '<urlset><loc>https://example.com/stray</loc><url><loc>  </loc><loc/></url></urlset>';
    expect(extractSitemap(xml)).toEqual({ pages: [], sitemaps: [] });
  });

  it('matches element names in any case', () => {
    expect(extractSitemap('<URLSET><URL><LOC>https://example.com/u</LOC></URL></URLSET>').pages).toEqual(['https://example.com/u']);
  });

  it('ignores comments', () => {
    const xml = '<urlset><!-- <url><loc>https://example.com/no</loc></url> --><url><loc>https://example.com/yes</loc></url></urlset>';
    expect(extractSitemap(xml).pages).toEqual(['https://example.com/yes']);
  });

  it('ends a loc left open when its url closes, and one cut off by the end of the file', () => {
    expect(extractSitemap('<urlset><url><loc>https://example.com/a</url><url><loc>https://example.com/b').pages).toEqual([
      'https://example.com/a',
      'https://example.com/b',
    ]);
  });

  it('does not throw on garbage', () => {
    for (const xml of ['', '<', '<<<>>>', '</url></loc>', '<?xml', '<![CDATA[', 'not xml at all', '<html><body>hi'])
      expect(() => extractSitemap(xml)).not.toThrow();
  });

  it('handles 100,000 unclosed elements and 100,000 urls', { timeout: 5_000 }, () => {
    // The timeout catches a quadratic regression (htmlparser2's Parser keeps its stack with unshift).
    const n = 100_000;
    expect(extractSitemap(`<urlset>${'<x>'.repeat(n)}${'</y>'.repeat(n)}`)).toEqual({ pages: [], sitemaps: [] });
    const urls = Array.from({ length: n }, (_, i) => `<url><loc>https://example.com/${i}</loc></url>`).join('');
    const pages = extractSitemap(`<urlset>${urls}</urlset>`).pages;
    expect(pages).toHaveLength(n);
    expect(pages[n - 1]).toBe(`https://example.com/${n - 1}`);
  });
});

describe('isGzip', () => {
  it('recognises the gzip magic bytes', () => {
    expect(isGzip(gzipSync('<urlset/>'))).toBe(true);
    expect(isGzip(new Uint8Array([0x1f, 0x8b]))).toBe(true);
  });

  it('rejects plain xml, short and empty bodies', () => {
    expect(isGzip(new TextEncoder().encode('<?xml version="1.0"?>'))).toBe(false);
    expect(isGzip(new Uint8Array([0x1f]))).toBe(false);
    expect(isGzip(new Uint8Array([0x8b, 0x1f]))).toBe(false);
    expect(isGzip(new Uint8Array([0x1f, 0x00, 0x08]))).toBe(false);
    expect(isGzip(new Uint8Array())).toBe(false);
  });
});
