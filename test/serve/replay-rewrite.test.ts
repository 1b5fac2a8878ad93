import { describe, expect, it } from 'vitest';
import { extractPage } from '../../src/html/index.js';
import { rewriteCss } from '../../src/serve/replay/rewrite-css.js';
import { rewriteHtml } from '../../src/serve/replay/rewrite-html.js';
import { pathTarget, rewriteRefresh, rewriteSrcset, urlRewriter } from '../../src/serve/replay/rewrite-url.js';

const REPLAY = 'http://127.0.0.1:5001';
const TS = '20261123105533';
const PAGE = 'http://site.example/dir/page.html';
const rewrite = urlRewriter(PAGE, pathTarget(REPLAY, TS));
const at = (url: string) => `${REPLAY}/${TS}/${url}`;
const INJECT = '<!--inject-->';
const html = (source: string) => rewriteHtml(source, { pageUrl: PAGE, target: pathTarget(REPLAY, TS), inject: INJECT });

describe('urlRewriter', () => {
  it('resolves against the page and points at the replay origin with the page timestamp', () => {
    expect(rewrite('a.png')).toBe(at('http://site.example/dir/a.png'));
    expect(rewrite('/x?y=1#top')).toBe(at('http://site.example/x?y=1#top'));
    expect(rewrite('//cdn.example/lib.js')).toBe(at('http://cdn.example/lib.js'));
    expect(rewrite(' https://other.example/ ')).toBe(at('https://other.example/'));
  });

  it('leaves fragments, other schemes, replay URLs and unparsable URLs as written', () => {
    for (const raw of [
      '#top',
      'javascript:void(0)',
      'data:image/png;base64,AAAA',
      'blob:http://x/1',
      'mailto:a@b.example',
      'tel:123',
      'http://[bad',
      `${REPLAY}/${TS}/http://a/`,
      '',
    ]) {
      expect(rewrite(raw)).toBe(raw);
    }
  });
});

describe('rewriteSrcset', () => {
  it('rewrites each candidate and keeps descriptors, commas inside URLs and spacing', () => {
    expect(rewriteSrcset('a.jpg 1x, b.jpg?x=1,2 2x,c.jpg', rewrite)).toBe(
      `${at('http://site.example/dir/a.jpg')} 1x, ${at('http://site.example/dir/b.jpg?x=1,2')} 2x,${at('http://site.example/dir/c.jpg')}`,
    );
    expect(rewriteSrcset('data:image/png;base64,AA 1x', rewrite)).toBe('data:image/png;base64,AA 1x');
  });

  it('finds the candidates the crawl finds: a ")" ends a parenthesis however many "(" opened it', () => {
    // HTML's srcset parser does not nest parentheses, so the comma after ")" starts b.jpg, which a browser loads.
    expect(rewriteSrcset('a.jpg (( ) 1x, b.jpg 2x', rewrite)).toBe(
      `${at('http://site.example/dir/a.jpg')} (( ) 1x, ${at('http://site.example/dir/b.jpg')} 2x`,
    );
    for (const srcset of [
      'a.jpg (( ) 1x, b.jpg 2x',
      'a.jpg 1x,b.jpg,, c.jpg (a,b) 3x , d.jpg',
      ' a.jpg?x=1,2 1x,\tb.jpg,',
      'a.jpg (1x, b.jpg 2x',
    ]) {
      const rewritten: string[] = [];
      rewriteSrcset(srcset, (url) => (rewritten.push(url), url));
      const crawled: string[] = [];
      extractPage(`<img srcset="${srcset}">`, (href) => crawled.push(href));
      expect(rewritten).toEqual(crawled);
    }
  });
});

describe('rewriteRefresh', () => {
  it('rewrites the URL of a refresh and keeps the delay', () => {
    expect(rewriteRefresh('5; url=/next', rewrite)).toBe(`5; url=${at('http://site.example/next')}`);
    expect(rewriteRefresh("0;URL='next.html'", rewrite)).toBe(`0;URL='${at('http://site.example/dir/next.html')}'`);
    expect(rewriteRefresh('30', rewrite)).toBe('30');
  });

  it('reads a refresh as the crawl and the browser do: ASCII whitespace only, and nothing from content that is no refresh', () => {
    // A no-break space is not whitespace to HTML: the URL starts at it, and a browser goes to ".../%C2%A0url=/next".
    expect(rewriteRefresh('0;\u00a0url=/next', rewrite)).toBe(`0;${at('http://site.example/dir/%C2%A0url=/next')}`);
    for (const content of ['1e3; url=/next', '; url=/next', 'url=/next']) expect(rewriteRefresh(content, rewrite)).toBe(content);
  });
});

describe('rewriteCss', () => {
  it('rewrites url() in every spelling and @import, leaving the rest byte for byte', () => {
    const css = `@import "base.css"; @import url(print.css) print;\n.a{background:url( 'img/a.png' )}\n.b{background:URL(/b.png)}\n/* url(c.png) */ .c{content:"url(d.png)"} .e{background:url(data:image/png;base64,AA)}`;
    expect(rewriteCss(css, rewrite)).toBe(
      `@import "${at('http://site.example/dir/base.css')}"; @import url("${at('http://site.example/dir/print.css')}") print;\n` +
        `.a{background:url( "${at('http://site.example/dir/img/a.png')}" )}\n.b{background:URL("${at('http://site.example/b.png')}")}\n` +
        `/* url(c.png) */ .c{content:"url(d.png)"} .e{background:url(data:image/png;base64,AA)}`,
    );
  });

  it('escapes quotes of the URL it writes back', () => {
    expect(rewriteCss('a{b:url(x".png)}', rewrite)).toBe('a{b:url(x".png)}'); // a bad URL: not rewritten
    expect(rewriteCss(`a{b:url('x"y.png')}`, rewrite)).toBe(`a{b:url("${at('http://site.example/dir/x%22y.png')}")}`);
  });
});

describe('rewriteHtml', () => {
  it('rewrites URL attributes of every kind in place', () => {
    const out = html(
      '<!doctype html><html><head><title>t</title><link rel="stylesheet" href="s.css"></head><body>' +
        '<a href="/a" ping="/p1 /p2">a</a><img src=i.png srcset="i1.png 1x, i2.png 2x"><video poster="v.jpg" src="v.mp4"></video>' +
        '<object data="o.swf"></object><form action="/f"><button formaction="/g">g</button></form><table background="bg.gif"></table>' +
        '<div style="background:url(d.png)">x</div><a href="#top">top</a><a href="javascript:void(0)">js</a></body></html>',
    );
    for (const url of [
      'http://site.example/dir/s.css',
      'http://site.example/a',
      'http://site.example/p1',
      'http://site.example/p2',
      'http://site.example/dir/i.png',
      'http://site.example/dir/i1.png',
      'http://site.example/dir/i2.png',
      'http://site.example/dir/v.jpg',
      'http://site.example/dir/v.mp4',
      'http://site.example/dir/o.swf',
      'http://site.example/f',
      'http://site.example/g',
      'http://site.example/dir/bg.gif',
      'http://site.example/dir/d.png',
    ]) {
      expect(out).toContain(at(url));
    }
    expect(out).toContain('<img src="' + at('http://site.example/dir/i.png') + '" srcset=');
    expect(out).toContain('href="#top"');
    expect(out).toContain('href="javascript:void(0)"');
  });

  it('rewrites <style> sheets and leaves scripts alone', () => {
    const out = html('<style>@import "x.css"; p{background:url(p.png)}</style><script>var u = "/api/x"; if (a<b) {}</script>');
    expect(out).toContain(
      `<style>@import "${at('http://site.example/dir/x.css')}"; p{background:url("${at('http://site.example/dir/p.png')}")}</style>`,
    );
    expect(out).toContain('<script>var u = "/api/x"; if (a<b) {}</script>');
  });

  it('resolves against <base href> and points the base itself at its replay URL', () => {
    const out = html('<head><base href="http://other.example/root/"></head><body><a href="x">x</a><img src="/y.png"></body>');
    expect(out).toContain(`<base href="${at('http://other.example/root/')}">`);
    expect(out).toContain(`<a href="${at('http://other.example/root/x')}">`);
    expect(out).toContain(`<img src="${at('http://other.example/y.png')}">`);
  });

  it('rewrites a meta refresh, drops connection hints, CSP, charset and referrer metas, and integrity', () => {
    const out = html(
      '<head><meta charset="gbk"><meta http-equiv="Content-Type" content="text/html; charset=gbk"><meta http-equiv="refresh" content="3; url=/next">' +
        '<meta http-equiv="Content-Security-Policy" content="default-src *"><link rel="dns-prefetch" href="//x.example"><link rel=preconnect href="https://y.example">' +
        '<link rel="prefetch" href="/p"><link rel="prerender" href="/q"><meta name="referrer" content="no-referrer"><script src="s.js" integrity="sha384-abc" nonce="n1"></script></head>',
    );
    expect(out).toBe(
      `<head>${INJECT}<meta http-equiv="refresh" content="3; url=${at('http://site.example/next')}">` +
        `<script src="${at('http://site.example/dir/s.js')}"  nonce="n1"></script></head>`,
    );
  });

  it('rewrites the document of an iframe srcdoc, shim included', () => {
    const out = html('<body><iframe srcdoc="<p><img src=&quot;/in.png&quot;></p>"></iframe></body>');
    expect(out).toBe(
      `${INJECT}<body><iframe srcdoc="${INJECT.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'))}&lt;p&gt;&lt;img src=&quot;${at('http://site.example/in.png')}&quot;&gt;&lt;/p&gt;"></iframe></body>`,
    );
  });

  it('decodes entities before rewriting and escapes what it writes', () => {
    const out = html('<a href="/a?x=1&amp;y=2&quot;">a</a>');
    expect(out).toContain(`<a href="${at('http://site.example/a?x=1&amp;y=2%22')}">`);
  });

  it('injects at the top of <head>, or before the first element or text when there is none, never before the doctype', () => {
    expect(html('<!doctype html><html lang="en"><head><title>t</title></head></html>')).toBe(
      `<!doctype html><html lang="en"><head>${INJECT}<title>t</title></head></html>`,
    );
    expect(html('<!doctype html>\n<p>hi</p>')).toBe(`<!doctype html>\n${INJECT}<p>hi</p>`);
    expect(html('<!doctype html>hello')).toBe(`<!doctype html>${INJECT}hello`);
    expect(html('<html></html>')).toBe(`<html>${INJECT}</html>`);
    expect(html('')).toBe(INJECT);
  });

  it('leaves markup it does not rewrite byte for byte', () => {
    const source =
      "<!DOCTYPE html>\n<HTML><Head><TITLE>x &amp; y</TITLE></Head><BODY class=a data-x='1'>text &copy; <!-- c --><br/></BODY></HTML>";
    expect(html(source)).toBe(source.replace('<Head>', `<Head>${INJECT}`));
  });
});
