import { describe, expect, it } from 'vitest';
import { extractPage } from '../../src/html/index.js';

const shareOf = (html: string) => extractPage(html, () => {}, { text: true }).text!.linkShare;

/** An index as Sphinx writes genindex pages: entries, each a link, under a letter. */
const INDEX_PAGE = `<html><body><nav role="navigation"><p>Some words of the site's navigation, not links.</p></nav>
<div role="main"><h1>Index – W</h1><table><tr><td><ul>
<li><a href="library/traceback.html#traceback.walk_tb">walk_tb() (in module traceback)</a></li>
<li><a href="reference/expressions.html#index-93">walrus operator</a></li>
<li><a href="library/doctest.html#doctest.Example.want">want (doctest.Example attribute)</a></li>
<li><a href="library/warnings.html#warnings.warn">warn() (in module warnings)</a></li>
</ul></td></tr></table></div></body></html>`;

/** Prose that links a word or two, as a reference page does. */
const PROSE_PAGE = `<html><body><nav><a href="/">Home</a> <a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a></nav>
<main><h1>Assignment expressions</h1><p>An assignment expression (sometimes also called a named expression or
walrus) assigns an expression to an identifier, while also returning the value of the expression. See
<a href="#pep572">PEP 572</a> for more details about assignment expressions and the reasons for them.</p></main></body></html>`;

describe("a page's link share: how much of its text is the text of links", () => {
  it('is near 1 on an index and near 0 on prose, counting the content only (navigation is left out of both)', () => {
    const index = shareOf(INDEX_PAGE);
    const prose = shareOf(PROSE_PAGE);
    expect(index).toBeGreaterThan(0.85);
    expect(index).toBeLessThanOrEqual(1);
    expect(prose).toBeGreaterThan(0);
    expect(prose).toBeLessThan(0.1);
  });

  it('counts letters, not the spaces and line breaks of markup', () => {
    const spaced = shareOf('<p>one two</p>\n\n\n\n          <a href="/x">three</a>\n\n\n          ');
    expect(spaced).toBeCloseTo(5 / 11, 5);
  });

  it('is 1 for a page that is nothing but navigation (a site map), whose text is kept', () => {
    const text = extractPage('<nav><a href="/a">Alpha</a> <a href="/b">Beta</a></nav>', () => {}, { text: true }).text!;
    expect(text.body).toBe('Alpha Beta');
    expect(text.linkShare).toBe(1);
  });

  it('counts the text of an <a> without href (an anchor) as prose', () => {
    expect(shareOf('<p><a name="top">Top</a> of the page</p>')).toBe(0);
  });
});
