import { describe, expect, it } from 'vitest';
import { extractPage, TEXT_EXTRACTION_VERSION } from '../../src/html/index.js';

const textOf = (html: string) => extractPage(html, () => {}, { text: true }).text!;
const body = (html: string) => textOf(html).body;

/** The shape of a page of the Python docs (Sphinx 5, python_docs_theme), its navigation as Sphinx marks it. */
const SPHINX_PAGE = `<!DOCTYPE html><html><head><title>sys — System-specific parameters</title></head><body>
<div class="mobile-nav"><nav class="nav-content" role="navigation"><form role="search" class="search" action="../search.html">
  <input type="text" name="q" aria-label="Quick search"/><input type="submit" value="Go"/></form></nav>
  <div class="menu-wrapper"><nav class="menu" role="navigation" aria-label="main navigation">
    <div><h3><a href="../contents.html">Table of Contents</a></h3><ul><li><a href="#">sys</a></li></ul></div></nav></div></div>
<div class="related" role="navigation" aria-label="related navigation"><h3>Navigation</h3>
  <ul><li class="right"><a href="../genindex.html">index</a></li><li><a href="python.html">Python Runtime Services</a> |</li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">
  <section id="module-sys"><h1><code>sys</code> — System-specific parameters and functions<a class="headerlink" href="#module-sys" title="Permalink to this heading">¶</a></h1>
  <p>This module provides access to some variables used by the interpreter.</p>
  <dl><dt id="sys.path"><code>sys.path</code><a class="headerlink" href="#sys.path" title="Permalink to this definition">¶</a></dt>
  <dd><p>A list of strings that specifies the search path for modules.</p></dd></dl></section>
</div></div></div>
<div class="sphinxsidebar" role="navigation" aria-label="main navigation"><div class="sphinxsidebarwrapper">
  <div><h4>Previous topic</h4><p class="topless"><a href="python.html">Python Runtime Services</a></p></div>
  <div role="note" aria-label="source link"><h3>This Page</h3><ul class="this-page-menu"><li><a href="../bugs.html">Report a Bug</a></li></ul></div>
  <div id="searchbox" role="search"><h3>Quick search</h3><form class="search"><input type="text" name="q"/></form></div></div></div>
<div class="clearer"></div></div>
<div class="footer">&copy; Copyright 2001-2026, Python Software Foundation.</div>
</body></html>`;

describe('page text leaves out the boilerplate a page marks', () => {
  it('reads a Sphinx page from its content: no navigation, search box or sidebar, no ¶, headings without their permalink', () => {
    const text = textOf(SPHINX_PAGE);
    expect(text.body).toMatch(/^sys — System-specific parameters and functions This module provides access/);
    for (const boilerplate of [
      'Table of Contents',
      'Navigation',
      'Previous topic',
      'This Page',
      'Quick search',
      'Python Runtime Services',
      '¶',
    ]) {
      expect(text.body).not.toContain(boilerplate);
    }
    expect(text.body).toContain('sys.path A list of strings that specifies the search path for modules.');
    // Not marked as boilerplate by the page, so kept.
    expect(text.body).toMatch(/Python Software Foundation\.$/);
    expect(text.headings).toBe('sys — System-specific parameters and functions');
    expect(text.version).toBe(TEXT_EXTRACTION_VERSION);
  });

  it('leaves out <nav>, role="navigation" and role="search", counting nested elements of the same name to find their end', () => {
    expect(body('<nav><ul><li><a href="/">Home</a></ul></nav><p>one</p>')).toBe('one');
    expect(body('<div role="navigation"><div>a</div><div><div>b</div></div>c</div><p>two</p>')).toBe('two');
    expect(body('<div role="banner navigation">x</div><form role="search"><input name="q"></form><p>three</p>')).toBe('three');
    expect(body('<p>before</p><nav><nav>inner</nav>still nav</nav><p>after</p>')).toBe('before after');
  });

  it('leaves out a page-level <header> and <footer>, and keeps those of a <main> or an <article>', () => {
    expect(body('<header>Site name</header><p>text</p><footer>Copyright</footer>')).toBe('text');
    expect(body('<main><header>Chapter 1</header><p>text</p><footer>Next chapter</footer></main>')).toBe('Chapter 1 text Next chapter');
    expect(
      body(
        '<header>Site</header><article><header><h1>Post</h1></header><p>text</p><footer>by A</footer></article><footer>Site footer</footer>',
      ),
    ).toBe('Post text by A');
    expect(textOf('<header><h1>Site name</h1></header><article><h1>Post</h1></article>').headings).toBe('Post');
  });

  it('leaves out aria-hidden="true" content and heading permalinks; a ¶ elsewhere is text', () => {
    expect(body('<p>Close <span aria-hidden="true">×</span>dialog</p>')).toBe('Close dialog');
    expect(body('<p aria-hidden="false">shown</p>')).toBe('shown');
    expect(body('<h2 id="x">Install<a href="#x">¶</a></h2><p>¶ 12 of the contract</p>')).toBe('Install ¶ 12 of the contract');
    expect(textOf('<h2 id="x">Install<a class="headerlink" href="#x" title="Permalink">¶</a></h2>').headings).toBe('Install');
    expect(body('<p>See <a href="/p">¶ 12</a></p>')).toBe('See ¶ 12');
  });

  it('keeps the text of a page that is all navigation, a site map say', () => {
    expect(body('<nav><ul><li><a href="/a">Alpha</a><li><a href="/b">Beta</a></ul></nav>')).toBe('Alpha Beta');
  });

  it('marks nothing on an element whose end tag may be left out, or a self-closed one, so the rest of the page is not lost', () => {
    expect(body('<ul><li aria-hidden="true">hidden?<li>item</ul><p>after</p>')).toBe('hidden? item after');
    expect(body('<div role="navigation"/><p>after</p>')).toBe('after');
  });
});
