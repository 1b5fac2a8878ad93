import { describe, expect, it } from 'vitest';
import { extractPage, findBase, type FoundKind, type FoundLink } from '../../src/html/index.js';

/** The page's facts with its links collected in document order. */
const scan = (html: string) => {
  const links: FoundLink[] = [];
  const facts = extractPage(html, (href, kind, nofollow) => links.push({ href, kind, nofollow }));
  return { ...facts, links };
};

const hrefs = (html: string, kind?: FoundKind) =>
  scan(html)
    .links.filter((link) => kind === undefined || link.kind === kind)
    .map((link) => link.href);

const link = (href: string, kind: FoundKind = 'link', nofollow = false): FoundLink => ({ href, kind, nofollow });

describe('extractPage: page links', () => {
  it('finds a, area, iframe, frame and rel-less link elements, in document order, duplicates kept', () => {
    const html = `
      <a href="/a">A</a><map><area href="/area"></map>
      <iframe src="/iframe"></iframe><frameset><frame src="/frame"></frameset>
      <link href="/bare-link"><link rel="alternate" href="/feed"><a href="/a">again</a>`;
    expect(scan(html).links).toEqual([
      link('/a'),
      link('/area'),
      link('/iframe'),
      link('/frame'),
      link('/bare-link'),
      link('/feed'),
      link('/a'),
    ]);
  });

  it('returns hrefs as written: entities decoded, trimmed, not resolved', () => {
    expect(hrefs('<a href="  /d?x=1&amp;y=2&#x41;\n">x</a><A HREF="../Up">u</A><a href="#frag">f</a>')).toEqual([
      '/d?x=1&y=2A',
      '../Up',
      '#frag',
    ]);
  });

  it('skips missing, empty and whitespace-only urls', () => {
    expect(scan('<a>x</a><a href>y</a><a href="">z</a><a href=" \t\n ">w</a><img src="  ">').links).toEqual([]);
  });

  it('sets nofollow from the rel tokens of a, area and link, in any case', () => {
    const html = `
      <a href="/1" rel="nofollow">1</a><a href="/2" rel="ugc  NoFollow">2</a><a href="/3" rel="nofollowx">3</a>
      <area href="/4" rel="nofollow"><link rel="next nofollow" href="/5"><a href="/6">6</a>`;
    expect(scan(html).links).toEqual([
      link('/1', 'link', true),
      link('/2', 'link', true),
      link('/3', 'link', false),
      link('/4', 'link', true),
      link('/5', 'link', true),
      link('/6', 'link', false),
    ]);
  });

  it('uses the first of two repeated attributes, as browsers do', () => {
    expect(hrefs('<a href="/first" href="/second">x</a>')).toEqual(['/first']);
  });

  it('reads its attributes among any others, on tags of any name and length, attributes of one tag not leaking into the next', () => {
    const html = `
      <ARTICLE class="x" STYLE="background:url(/article.png)"><IMAGE lang=en SRC=/image.png alt="a &amp; b"></ARTICLE>
      <a title="t" hreflang="en" HREF="/a&amp;b" data-href="/not" rel="author NoFollow">a</a>
      <a>no href: the previous tag's attributes are gone</a>
      <section><img srcset="/s.png 1x" data-src="/lazy.png" src=""></section>
      <object type="x" data="/object.swf"></object><input name="q" type=" IMAGE " src="/button.png">`;
    expect(scan(html).links).toEqual([
      link('/article.png', 'requisite'),
      link('/image.png', 'requisite'),
      link('/a&b', 'link', true),
      link('/s.png', 'requisite'),
      link('/object.swf', 'requisite'),
      link('/button.png', 'requisite'),
    ]);
  });

  it('ignores links in comments, scripts, textareas and iframe fallback content', () => {
    const html = `
      <!-- <a href="/commented">x</a> -->
      <script>document.write('<a href="/scripted">x</a>')</script>
      <textarea><a href="/in-textarea"></a></textarea>
      <iframe src="/frame"><a href="/fallback"></a></iframe>
      <a href="/real">real</a>`;
    expect(hrefs(html)).toEqual(['/frame', '/real']);
  });
});

describe('extractPage: <link rel>', () => {
  it('sorts link elements into page links, requisites, hints and canonical', () => {
    const html = `
      <link rel="stylesheet" href="/s.css"><link rel="alternate stylesheet" href="/alt.css">
      <link rel="icon" href="/i.png"><link rel="shortcut icon" href="/fav.ico">
      <link rel="apple-touch-icon" href="/t.png"><link rel="mask-icon" href="/m.svg">
      <link rel="preload" href="/p.woff2" as="font"><link rel="modulepreload" href="/m.js">
      <link rel="prefetch" href="/prefetch"><link rel="preconnect" href="https://cdn.example">
      <link rel="dns-prefetch" href="//dns.example"><link rel="manifest" href="/app.webmanifest">
      <link rel="canonical" href="/canon"><link rel="next" href="/page2"><link rel="STYLESHEET" href="/upper.css">`;
    expect(scan(html).links).toEqual([
      link('/s.css', 'requisite'),
      link('/alt.css', 'requisite'),
      link('/i.png', 'requisite'),
      link('/fav.ico', 'requisite'),
      link('/t.png', 'requisite'),
      link('/m.svg', 'requisite'),
      link('/p.woff2', 'requisite'),
      link('/m.js', 'requisite'),
      link('/canon', 'canonical'),
      link('/page2', 'link'),
      link('/upper.css', 'requisite'),
    ]);
  });

  it('reports every canonical link but keeps the first as canonical', () => {
    const facts = scan('<link rel="canonical" href=""><link rel="Canonical" href=" /one "><link rel="canonical" href="/two">');
    expect(facts.canonical).toBe('/one');
    expect(hrefs('<link rel="canonical" href="/one"><link rel="canonical" href="/two">', 'canonical')).toEqual(['/one', '/two']);
  });

  it('leaves canonical undefined when there is none', () => {
    expect(scan('<a href="/x">x</a>').canonical).toBeUndefined();
  });
});

describe('extractPage: requisites', () => {
  it('finds every requisite element and attribute', () => {
    const html = `
      <img src="/img.png"><image src="/image-alias.png">
      <picture><source src="/source.webm" srcset="/source-1x.webp"></picture>
      <script src="/app.js"></script>
      <video src="/v.mp4" poster="/poster.jpg"><track src="/subs.vtt"></video>
      <audio src="/a.mp3"></audio><embed src="/e.swf"><object data="/o.pdf"></object>
      <input type="image" src="/button.png"><input type=IMAGE src="/button2.png"><input type="text" src="/not-an-image">`;
    expect(scan(html).links).toEqual(
      [
        '/img.png',
        '/image-alias.png',
        '/source.webm',
        '/source-1x.webp',
        '/app.js',
        '/v.mp4',
        '/poster.jpg',
        '/subs.vtt',
        '/a.mp3',
        '/e.swf',
        '/o.pdf',
        '/button.png',
        '/button2.png',
      ].map((href) => link(href, 'requisite')),
    );
  });

  it('parses srcset candidates with descriptors', () => {
    expect(hrefs('<img srcset="/a.jpg 1x, /b.jpg 2x,/c.jpg 3x">')).toEqual(['/a.jpg', '/b.jpg', '/c.jpg']);
    expect(hrefs('<img srcset="  /w400.jpg 400w ,\n /w800.jpg   800w  ">')).toEqual(['/w400.jpg', '/w800.jpg']);
    expect(hrefs('<source srcset="/only.webp">')).toEqual(['/only.webp']);
  });

  it('keeps commas inside a srcset url and strips trailing ones, per the HTML algorithm', () => {
    // A url runs to whitespace, so "a.jpg?x=1,2" keeps its comma; "b.jpg," loses its trailing commas.
    expect(hrefs('<img srcset="/a.jpg?x=1,2 1x, /b.jpg,, /c.jpg 2x">')).toEqual(['/a.jpg?x=1,2', '/b.jpg', '/c.jpg']);
    // With no whitespace at all the whole value is one url.
    expect(hrefs('<img srcset="/a.jpg,/b.jpg">')).toEqual(['/a.jpg,/b.jpg']);
    // A data: url's comma is inside the url.
    expect(hrefs('<img srcset="data:image/png;base64,AAAA 1x, /d.png 2x">')).toEqual(['data:image/png;base64,AAAA', '/d.png']);
  });

  it('skips srcset descriptors up to the next comma outside parentheses', () => {
    expect(hrefs('<img srcset="/a.jpg (junk, more) 1x, /b.jpg 2x">')).toEqual(['/a.jpg', '/b.jpg']);
  });

  it('reads css urls from <style> text and style attributes', () => {
    const html = `
      <style>
        @import "/imported.css";
        body { background: url('/bg.png') }
        /* url(/commented.png) */
        .x { background-image: url(&quot;/raw.png&quot;) }
      </style>
      <div style="background: url(&quot;/attr.png&quot;)"></div>
      <a href="/page" style="background:url(/link-bg.png)">p</a>`;
    expect(scan(html).links).toEqual([
      link('/imported.css', 'requisite'),
      link('/bg.png', 'requisite'),
      // <style> is raw text, so its entities are not decoded (neither do browsers).
      link('&quot;/raw.png&quot;', 'requisite'),
      link('/attr.png', 'requisite'),
      link('/page', 'link'),
      link('/link-bg.png', 'requisite'),
    ]);
  });

  it('reads an unclosed <style> to the end of the document', () => {
    expect(hrefs('<style>a { b: url(/late.png) }')).toEqual(['/late.png']);
  });
});

describe('extractPage: <base>, <title>', () => {
  it('takes the first base with an href only', () => {
    expect(findBase('<base target="_top"><base href=" /b1/ "><base href="/b2/">')).toBe('/b1/');
    expect(findBase('<a href="x">x</a>')).toBeUndefined();
  });

  it('finds a base after the links it applies to, in any case, but not in comments or scripts', () => {
    expect(findBase('<a href="x">x</a><BASE HREF="/late/">')).toBe('/late/');
    expect(findBase('<!-- <base href="/c/"> --><script>"<base href=/s/>"</script><a href="x">x</a>')).toBeUndefined();
  });

  it('takes the first title, entities decoded, whitespace collapsed and trimmed', () => {
    expect(scan('<title>\n  Tom &amp;\t Jerry  \n</title><title>Second</title>').title).toBe('Tom & Jerry');
    expect(scan('<TITLE>Upper</TITLE>').title).toBe('Upper');
  });

  it('does not parse markup inside the title', () => {
    expect(scan('<title>a <b>bold</b> <a href="/no">move</a></title>').title).toBe('a <b>bold</b> <a href="/no">move</a>');
    expect(hrefs('<title>a <a href="/no">x</a></title>')).toEqual([]);
  });

  it('ignores an svg title, and treats an empty first title as no title', () => {
    expect(scan('<body><svg><title>Icon</title></svg><title>Page</title>').title).toBe('Page');
    expect(scan('<title>   </title><title>Later</title>').title).toBeUndefined();
    expect(scan('<p>no title</p>').title).toBeUndefined();
  });

  it('reads an unclosed title to the end of the document', () => {
    expect(scan('<title>Runs   on').title).toBe('Runs on');
  });
});

describe('extractPage: meta robots', () => {
  const robots = (content: string, name = 'robots') => scan(`<meta name="${name}" content="${content}">`).robots;

  it('reads each directive, in any case and separator', () => {
    expect(robots('noindex')).toEqual({ noindex: true, nofollow: false, noarchive: false });
    expect(robots('NOFOLLOW')).toEqual({ noindex: false, nofollow: true, noarchive: false });
    expect(robots('noarchive')).toEqual({ noindex: false, nofollow: false, noarchive: true });
    expect(robots('noindex,nofollow')).toEqual({ noindex: true, nofollow: true, noarchive: false });
    expect(robots(' NoIndex , NoArchive ')).toEqual({ noindex: true, nofollow: false, noarchive: true });
    expect(robots('noindex nofollow')).toEqual({ noindex: true, nofollow: true, noarchive: false });
    expect(robots('index, follow, max-snippet:-1')).toEqual({ noindex: false, nofollow: false, noarchive: false });
  });

  it('reads "none" as noindex and nofollow', () => {
    expect(robots('none')).toEqual({ noindex: true, nofollow: true, noarchive: false });
  });

  it('matches the meta name in any case and combines several tags', () => {
    expect(robots('noindex', 'ROBOTS')).toEqual({ noindex: true, nofollow: false, noarchive: false });
    const facts = scan('<meta name="robots" content="noindex"><meta NAME="Robots" CONTENT="nofollow">');
    expect(facts.robots).toEqual({ noindex: true, nofollow: true, noarchive: false });
  });

  it('ignores other meta names', () => {
    expect(robots('noindex', 'googlebot')).toEqual({ noindex: false, nofollow: false, noarchive: false });
    expect(robots('noindex', 'description')).toEqual({ noindex: false, nofollow: false, noarchive: false });
  });

  it('does not turn page-level nofollow into per-link nofollow (the caller combines them)', () => {
    expect(scan('<meta name="robots" content="nofollow"><a href="/x">x</a>').links).toEqual([link('/x')]);
  });
});

describe('extractPage: meta refresh', () => {
  const refresh = (content: string, equiv = 'refresh') => hrefs(`<meta http-equiv="${equiv}" content="${content}">`, 'refresh');

  it('reads the url in each spelling', () => {
    expect(refresh('5; url=/next')).toEqual(['/next']);
    expect(refresh('5;url=/next')).toEqual(['/next']);
    expect(refresh('0; URL=/next')).toEqual(['/next']);
    expect(refresh('0;/next')).toEqual(['/next']);
    expect(refresh('0, /next')).toEqual(['/next']);
    expect(refresh('0 /next')).toEqual(['/next']);
    expect(refresh('3 ; url = /spaced ')).toEqual(['/spaced']);
    expect(refresh('1.5; url=/fraction')).toEqual(['/fraction']);
    expect(refresh('.5; url=/leading-dot')).toEqual(['/leading-dot']);
  });

  it('strips quotes around the url and cuts at the closing quote', () => {
    expect(refresh("0; URL='/quoted'")).toEqual(['/quoted']);
    expect(refresh("0; url='/quoted' trailing")).toEqual(['/quoted']);
    expect(refresh('0; url=&quot;/dq&quot;')).toEqual(['/dq']);
    expect(refresh("0; url='/unterminated")).toEqual(['/unterminated']);
  });

  it('keeps "url" as part of the url when no "=" follows', () => {
    expect(refresh('0; urlish/page')).toEqual(['urlish/page']);
  });

  it('matches http-equiv in any case', () => {
    expect(refresh('0; url=/x', 'Refresh')).toEqual(['/x']);
  });

  it('finds no url in a plain reload or a malformed content', () => {
    expect(refresh('5')).toEqual([]);
    expect(refresh('5;')).toEqual([]);
    expect(refresh('url=/no-delay')).toEqual([]);
    expect(refresh('5x; url=/bad-separator')).toEqual([]);
    expect(refresh('0; url=')).toEqual([]);
    expect(refresh('0; url=/x', 'content-type')).toEqual([]);
  });

  it('reports refresh links with nofollow false', () => {
    expect(scan('<meta http-equiv="refresh" content="0;/n">').links).toEqual([link('/n', 'refresh')]);
  });
});

describe('extractPage: malformed and large input', () => {
  it('does not throw on malformed html', () => {
    const junk = [
      '',
      '<',
      '<a href="/x',
      '<a href=/unquoted>ok</a',
      '</div></p><p></span>',
      '<!-- unclosed comment <a href="/hidden">',
      '<![CDATA[ <a href="/cdata"> ]]>',
      '<a href="&#xD800;&#0;&bogus;">',
      '<svg><a href="/svg-link"/></svg><math><mi><a href="/math">x</a></mi>',
      '\u0000<img src="/nul.png">\uFFFF',
    ];
    for (const html of junk) expect(() => scan(html)).not.toThrow();
    expect(hrefs('<a href=/unquoted>ok</a')).toEqual(['/unquoted']);
    expect(hrefs('<!-- unclosed comment <a href="/hidden">')).toEqual([]);
    expect(hrefs('<svg><a href="/svg-link"/></svg>')).toEqual(['/svg-link']);
  });

  // The timeouts, not an assertion, catch a quadratic regression: linear takes ~0.1 s, the
  // htmlparser2 Parser ~9 s on the unclosed tags alone (30 s with the stray close tags).
  it('handles 100,000 unclosed tags (htmlparser2 Parser is quadratic here; this must stay linear)', { timeout: 5_000 }, () => {
    const n = 100_000;
    const html = `<title>Deep</title>${'<div>'.repeat(n)}${'</span>'.repeat(n)}<a href="/bottom">b</a>`;
    const facts = scan(html);
    expect(facts.title).toBe('Deep');
    expect(facts.links).toEqual([link('/bottom')]);
  });

  it('handles 100,000 links', { timeout: 5_000 }, () => {
    const n = 100_000;
    const html = Array.from({ length: n }, (_, i) => `<div><a href="/p/${i}">${i}</a>`).join('');
    const facts = scan(html);
    expect(facts.links).toHaveLength(n);
    expect(facts.links[0]).toEqual(link('/p/0'));
    expect(facts.links[n - 1]).toEqual(link(`/p/${n - 1}`));
  });
});
