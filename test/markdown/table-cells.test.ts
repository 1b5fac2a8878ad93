import { describe, expect, it } from 'vitest';
import { pageMarkdown } from '../../src/markdown/index.js';

// A GFM table row is one line: cells holding paragraphs (Sphinx wraps every cell's text in <p>) are written
// on it, their blocks joined with <br>, a | in their text escaped. A layout table's cells are blocks of text.

const PAGE = `<!doctype html><html><head><title>Faster CPython — Docs</title></head><body><div class="body" role="main">
<section id="faster-cpython"><h1>Faster CPython</h1>
<p>Python will try to look for common patterns and type stability in the executing code, and replace the current operation with a more specialized one, which is faster.</p>
<p>The specializer will also combine certain common instruction pairs into one superinstruction, which reduces the overhead during execution, and more.</p>
<table class="docutils align-default"><thead><tr class="row-odd"><th class="head"><p>Operation</p></th><th class="head"><p>Form</p></th><th class="head"><p>Speedup</p></th></tr></thead>
<tbody><tr class="row-even"><td><p>Subscript</p></td><td><p><code class="docutils literal notranslate"><span class="pre">a[i]</span></code></p></td>
<td><p>10-25%</p><p>Custom <code>__getitem__</code>
is inlined | too</p></td></tr>
<tr class="row-odd"><td><p>Calls</p></td><td><p><code>f(arg)</code></p></td><td><p>20%</p></td></tr></tbody></table>
</section></div></body></html>`;

describe('pageMarkdown tables', () => {
  it('writes each row of a table whose cells hold paragraphs on one line', () => {
    const { markdown } = pageMarkdown(PAGE, 'https://docs.python.org/3/whatsnew/3.11.html');
    expect(markdown).toContain(
      [
        '| Operation | Form | Speedup |',
        '| --- | --- | --- |',
        '| Subscript | `a[i]` | 10-25%<br>Custom `__getitem__` is inlined \\| too |',
        '| Calls | `f(arg)` | 20% |',
      ].join('\n'),
    );
  });

  it("reads a layout table (Sphinx's module index) as one block per cell, not one line for the whole table", () => {
    const rows = Array.from(
      { length: 30 },
      (_, i) =>
        `<tr><td></td><td><a href="library/mod${i}.html#module-mod${i}"><code class="xref">mod${i}</code></a></td><td><em>What module ${i} does, said in a sentence.</em></td></tr>`,
    ).join('\n');
    const page = `<!doctype html><html><head><title>Python Module Index — Docs</title></head><body><div class="body" role="main">
<h1>Python Module Index</h1><div class="modindex-jumpbox"><a href="#cap-m"><strong>m</strong></a></div>
<table class="indextable modindextable"><tr class="pcap"><td></td><td>&#160;</td><td></td></tr>
<tr class="cap" id="cap-m"><td></td><td><strong>m</strong></td><td></td></tr>
${rows}</table></div></body></html>`;
    const { markdown } = pageMarkdown(page, 'https://docs.python.org/3/py-modindex.html');
    expect(markdown).toContain(
      '[`mod0`](https://docs.python.org/3/library/mod0.html#module-mod0)\n\n*What module 0 does, said in a sentence.*',
    );
    expect(markdown).toContain('[`mod29`](https://docs.python.org/3/library/mod29.html#module-mod29)\n\n*What module 29 does');
  });
});
