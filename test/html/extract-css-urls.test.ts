import { describe, expect, it } from 'vitest';
import { extractCssUrls as forEachCssUrl } from '../../src/html/extract-css-urls.js';

const extractCssUrls = (css: string) => {
  const urls: string[] = [];
  forEachCssUrl(css, (url) => urls.push(url));
  return urls;
};

describe('extractCssUrls', () => {
  it('reads url() unquoted, single- and double-quoted, with whitespace inside the parens', () => {
    const css = `
      a { background: url(a.png) }
      b { background: url('b.png') }
      c { background: url("c.png") }
      d { background: url(   d.png   ) }
      e { background: url(  "e.png"  ) }
      f { background: URL(f.png) }`;
    expect(extractCssUrls(css)).toEqual(['a.png', 'b.png', 'c.png', 'd.png', 'e.png', 'f.png']);
  });

  it('keeps several urls in one declaration in source order', () => {
    expect(extractCssUrls('src: url(x.woff2) format("woff2"), url(x.woff) format("woff");')).toEqual(['x.woff2', 'x.woff']);
  });

  it('decodes escaped quotes and parens', () => {
    expect(extractCssUrls(String.raw`a { b: url("q\"uote.png") }`)).toEqual(['q"uote.png']);
    expect(extractCssUrls(String.raw`a { b: url('it\'s.png') }`)).toEqual(["it's.png"]);
    expect(extractCssUrls(String.raw`a { b: url(paren\).png) }`)).toEqual(['paren).png']);
    expect(extractCssUrls(String.raw`a { b: url(\61 .png) }`)).toEqual(['a.png']);
  });

  it('reads every @import form, counting @import url() once', () => {
    const css = `
      @import "dq.css";
      @import 'sq.css' screen;
      @import url(u.css);
      @import url("uq.css") print;
      @IMPORT "upper.css";
      @import/**/"after-comment.css";`;
    expect(extractCssUrls(css)).toEqual(['dq.css', 'sq.css', 'u.css', 'uq.css', 'upper.css', 'after-comment.css']);
  });

  it('ignores urls and imports inside comments, including an unclosed one', () => {
    const css = `/* url(no1.png) @import "no2.css"; */ a { b: url(yes.png) } /* url(no3.png)`;
    expect(extractCssUrls(css)).toEqual(['yes.png']);
  });

  it('ignores url( inside strings and functions that merely end in "url"', () => {
    const css = `a::before { content: "url(no.png)" } b { x: myurl(no2.png); y: --url(no3.png) } c { d: url(yes.png) }`;
    expect(extractCssUrls(css)).toEqual(['yes.png']);
  });

  it('returns data: urls (the caller drops non-http schemes)', () => {
    expect(extractCssUrls('a { b: url(data:image/png;base64,iVBOR==) }')).toEqual(['data:image/png;base64,iVBOR==']);
  });

  it('skips empty and bad urls but keeps scanning after them', () => {
    // Unquoted with inner whitespace or a quote is a bad url in CSS; a newline ends a string badly.
    const css = `a { b: url() } c { d: url(a b) } e { f: url(x"y) } g { h: url("broken
      ) } i { j: url(ok.png) }`;
    expect(extractCssUrls(css)).toEqual(['ok.png']);
  });

  it('keeps a url that runs off the end of the input, as CSS does', () => {
    expect(extractCssUrls('a { b: url(tail.png')).toEqual(['tail.png']);
  });

  it('scans adversarial input in linear time', () => {
    // Each of these makes a backtracking regex (or a rescan per match) blow up.
    const n = 200_000;
    const hostile = ['url('.repeat(n), '/*'.repeat(n), '"'.repeat(n), '@import '.repeat(n), 'url(a '.repeat(n)];
    for (const css of hostile) expect(Array.isArray(extractCssUrls(css))).toBe(true);
    const many = 'a{b:url(x.png)}'.repeat(n);
    expect(extractCssUrls(many)).toHaveLength(n);
  });
});
