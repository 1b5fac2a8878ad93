import { describe, expect, it } from 'vitest';
import { pageMarkdown } from '../../src/markdown/index.js';

// A page's main content as GitHub-flavoured Markdown: what is around it left out, its structure kept.

const PAGE = `<!doctype html><html><head><title>Brewing tea — Kettle Docs</title></head><body>
<a href="#main" class="skip-to-content">Skip to content</a>
<header class="site-header"><a href="/">Kettle Docs</a> <a href="/login">Sign in</a></header>
<nav class="sidebar"><ul><li><a href="/a">Sidebar entry alpha</a></li><li><a href="/b">Sidebar entry beta</a></li></ul></nav>
<div id="cookie-banner" class="cookie-consent">We use cookies. <button>Accept all cookies</button></div>
<main><article>
<h1>Brewing tea</h1>
<p>Tea is brewed by steeping leaves in water that is hot but not always boiling. Green tea wants cooler water than
black tea, and the time matters as much as the temperature: too long and it turns bitter. This guide says how.</p>
<h2>What you need</h2>
<ul><li>A kettle with a thermometer</li><li>Loose leaves, about two grams a cup</li><li>A timer</li></ul>
<h2>Temperatures</h2>
<table><thead><tr><th>Tea</th><th>Water</th></tr></thead><tbody><tr><td>Green</td><td>80 °C</td></tr><tr><td>Black</td><td>95 °C</td></tr></tbody></table>
<p>Read the <a href="../guides/water.html">guide to water</a> for the hardness of the water, which changes the taste too.</p>
<pre><code class="language-python">def steep(minutes):
    return minutes * 60
</code></pre>
<p><img src="/img/pot.png" alt="A teapot on a stove"> A pot keeps the heat better than a mug does, which matters for black tea.</p>
</article></main>
<footer class="site-footer"><p>Copyright Kettle Inc. Footer text here.</p></footer>
</body></html>`;

describe('pageMarkdown', () => {
  const { title, markdown, text } = pageMarkdown(PAGE, 'https://example.org/docs/tea/brewing.html');

  it('keeps headings, lists, tables, fenced code with its language, absolute links and image alt text', () => {
    expect(title).toBe('Brewing tea — Kettle Docs');
    expect(markdown).toMatch(/^## What you need$/m);
    expect(markdown).toMatch(/^- {1,3}A kettle with a thermometer$/m);
    expect(markdown).toMatch(/^\| Tea \| Water \|$/m);
    expect(markdown).toMatch(/^\| Green \| 80 °C \|$/m);
    expect(markdown).toContain('```python\ndef steep(minutes):\n    return minutes * 60\n```');
    expect(markdown).toContain('[guide to water](https://example.org/docs/guides/water.html)');
    expect(markdown).toContain('![A teapot on a stove](https://example.org/img/pot.png)');
    expect(text).toContain('Tea is brewed by steeping leaves');
  });

  it('leaves out navigation, sidebars, footers and cookie banners', () => {
    for (const noise of ['Skip to content', 'Sidebar entry', 'Sign in', 'Accept all cookies', 'Footer text', 'Copyright']) {
      expect(markdown).not.toContain(noise);
      expect(text).not.toContain(noise);
    }
  });

  it('keeps a page whose wrapper is named like a cookie banner: only a short one is a banner', () => {
    const article = Array.from(
      { length: 12 },
      (_, i) => `<p>Paragraph ${i} of the story, long enough to be read as the article it is part of, and more.</p>`,
    ).join('');
    const wrapped = pageMarkdown(
      `<html><body><div class="js-cookie-consent-root"><h1>The story</h1>${article}</div><div class="cookie-notice">We use cookies. <button>OK</button></div></body></html>`,
      'https://example.org/story',
    );
    expect(wrapped.text).toContain('Paragraph 11 of the story');
    expect(wrapped.text).not.toContain('We use cookies');
  });

  it('falls back to the whole body when no article is found', () => {
    const short = pageMarkdown('<html><body><nav>Menu</nav><p>Just <b>one</b> line.</p></body></html>', 'https://example.org/');
    expect(short.markdown).toBe('Just **one** line.');
    expect(short.reason).toBeUndefined();
  });

  it('leaves out a skip link, also when the whole body is read (Node.js docs: an index page of links)', () => {
    const links = ['assert', 'buffer', 'events'].map((name) => `<li><a href="${name}.html">${name}</a></li>`).join('');
    const index = pageMarkdown(
      `<html><body><a href="#apicontent" class="skip-to-content">Skip to content</a><div id="apicontent"><ul>${links}</ul></div></body></html>`,
      'https://nodejs.org/api/index.html',
    );
    expect(index.markdown).toContain('[buffer](https://nodejs.org/api/buffer.html)');
    expect(index.markdown).not.toContain('Skip to content');
  });

  it('reads a layout table (no heading row) as paragraphs, and leaves out a footer marked only by its class', () => {
    const page = pageMarkdown(
      `<html><body><div class="body"><h1>Docs</h1><p>Welcome to the documentation of the kettle, which boils water for tea and coffee alike.</p>
      <table class="contentstable"><tr><td><p><a href="/tutorial/">Tutorial</a><br>start here</p></td><td><p><a href="/library/">Library</a><br>keep it close</p></td></tr></table></div>
      <div class="footer">© Copyright 2001, the kettle makers. Last updated today.</div></body></html>`,
      'https://example.org/',
    );
    expect(page.markdown).not.toContain('<table');
    expect(page.markdown).toContain('[Tutorial](https://example.org/tutorial/)');
    expect(page.markdown).not.toMatch(/\|/);
    expect(page.markdown).not.toContain('Copyright');
  });

  it('a page over 5 MB gives empty Markdown and a reason, and never throws', () => {
    const huge = pageMarkdown(`<html><body><p>${'x'.repeat(6 * 1024 * 1024)}</p></body></html>`, 'https://example.org/');
    expect(huge).toMatchObject({ markdown: '', text: '', reason: expect.stringMatching(/larger than/) });
    expect(() => pageMarkdown('<<<>>>\u0000</p></div>', 'not a url')).not.toThrow();
  });
});
