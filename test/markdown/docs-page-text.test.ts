import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pageMarkdown } from '../../src/markdown/index.js';

// Reduced pages of the Python docs (Sphinx) and the Node.js API docs: the Markdown holds the page's whole
// text, where Readability used to keep only part of it.

const para = (subject: string, n = 1) =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>${subject}, paragraph ${i}: this text explains, with commas, examples, and details, how the thing works in practice, so that a reader can use it.</p>`,
  ).join('\n');

const sphinx = (title: string, body: string) => `<!doctype html><html><head><title>${title} — Python 3.11.2 documentation</title></head>
<body><div class="related" role="navigation"><ul><li><a href="genindex.html">index</a></li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">${body}</div></div></div>
<div class="sphinxsidebar" role="navigation"><h3>Previous topic</h3><p><a href="x.html">Sidebar link</a></p></div></div>
<div class="footer">© Copyright 2001-2023, Python Software Foundation.</div></body></html>`;

describe('pageMarkdown on documentation pages', () => {
  it('keeps a section whose id, made from its heading, holds a word Readability reads as a box (related)', () => {
    const page = sphinx(
      'What’s New In Python 3.11',
      `<section id="what-s-new-in-python-3-11"><h1>What’s New In Python 3.11<a class="headerlink" href="#x">¶</a></h1>
${para('The release', 6)}
<section id="new-features"><h2>New Features</h2>${para('New features', 4)}</section>
<section id="new-features-related-to-type-hints"><span id="whatsnew311-typing-features"></span><h2>New Features Related to Type Hints</h2>
${para('Variadic generics', 3)}</section></section>`,
    );
    const { markdown } = pageMarkdown(page, 'https://docs.python.org/3/whatsnew/3.11.html');
    expect(markdown).toMatch(/^## New Features Related to Type Hints$/m);
    expect(markdown).toContain('Variadic generics, paragraph 2');
    expect(markdown).not.toContain('Sidebar link');
  });

  it('keeps every one of sibling sections without class or id (Node.js API docs), not only the best one', () => {
    // Readability took the error codes' section alone: the sections beside it scored too little on their own.
    const page = readFileSync(fileURLToPath(new URL('../fixtures/node-api-errors-excerpt.html', import.meta.url)), 'utf8');
    const { markdown } = pageMarkdown(page, 'https://nodejs.org/api/errors.html');
    expect(markdown).toMatch(/^### Error propagation and interception$/m);
    expect(markdown).toContain('Node.js supports several mechanisms for propagating and handling errors');
    expect(markdown).toMatch(/^#### `ERR_ACCESS_DENIED`$/m);
  });

  it('keeps footnotes that docutils writes as <aside>', () => {
    const page = sphinx(
      'Type Objects',
      `<section id="type-objects"><h1>Type Objects</h1>${para('Type objects', 5)}
<p class="rubric">Footnotes</p><aside class="footnote-list brackets"><aside class="footnote brackets" id="slots" role="note">
<span class="label"><span class="fn-bracket">[</span><a role="doc-backlink" href="#id1">1</a><span class="fn-bracket">]</span></span>
<p>Some slot types are inherited through the normal attribute lookup chain, as this footnote says.</p></aside>
<aside class="footnote brackets" id="id7" role="note"><span class="label"><span class="fn-bracket">[</span><a role="doc-backlink" href="#id3">2</a><span class="fn-bracket">]</span></span>
<p>See R. H. van Gent’s <a class="reference external" href="https://example.org/isocalendar.htm">guide to the mathematics of the ISO 8601 calendar</a> for a good explanation.</p></aside></aside></section>`,
    );
    const { markdown } = pageMarkdown(page, 'https://docs.python.org/3/c-api/typeobj.html');
    expect(markdown).toContain('inherited through the normal attribute lookup chain');
    // A short footnote that is mostly a link, which Readability's clean-up drops from a <div>.
    expect(markdown).toContain('[guide to the mathematics of the ISO 8601 calendar](https://example.org/isocalendar.htm)');
  });

  it('keeps notes set apart from the text (a See also box, a version note, a stability note) as quotes', () => {
    const page = sphinx(
      'An Informal Introduction to Python',
      `<section id="intro"><h1>An Informal Introduction to Python</h1>${para('Strings', 5)}
<div class="admonition seealso"><p class="admonition-title">See also</p><dl class="simple">
<dt><a class="reference internal" href="../library/stdtypes.html#textseq"><span class="std std-ref">Text Sequence Type — str</span></a></dt>
<dd><p>Strings are examples of sequence types.</p></dd>
<dt><a class="reference internal" href="../library/stdtypes.html#string-methods"><span class="std std-ref">String Methods</span></a></dt>
<dd><p>Strings support methods.</p></dd></dl></div>
<div class="versionchanged"><p><span class="versionmodified changed">Changed in version 3.11: </span>It <a href="a.html">accepts</a> <a href="b.html">more</a>.</p></div>
<div class="api_stability api_stability_1"><a href="documentation.html#stability-index">Stability: 1</a> - Experimental.</div>
${para('More strings', 2)}</section>`,
    );
    const { markdown } = pageMarkdown(page, 'https://docs.python.org/3/tutorial/introduction.html');
    expect(markdown).toMatch(/^> See also$/m);
    expect(markdown).toContain('[String Methods](https://docs.python.org/3/library/stdtypes.html#string-methods)');
    expect(markdown).toMatch(/^> Changed in version 3\.11:/m);
    expect(markdown).toMatch(/^> \[Stability: 1\]\(.*\) - Experimental\.$/m);
  });

  it("keeps the page's heading that repeats its title, at the top", () => {
    const page = sphinx(
      'Built-in Functions',
      `<section id="built-in-functions"><h1>Built-in Functions<a class="headerlink" href="#built-in-functions">¶</a></h1>${para('Functions', 6)}</section>`,
    );
    const { title, markdown } = pageMarkdown(page, 'https://docs.python.org/3/library/functions.html');
    expect(title).toBe('Built-in Functions — Python 3.11.2 documentation');
    expect(markdown.split('\n')[0]).toBe('# Built-in Functions');
    expect(markdown.match(/^# Built-in Functions$/gm)).toHaveLength(1);
  });
});
