import { describe, expect, it } from 'vitest';
import { replayAddresses } from '../../src/serve/replay-addresses.js';
import { rewriteCss } from '../../src/serve/replay/rewrite-css.js';
import { rewriteHtml } from '../../src/serve/replay/rewrite-html.js';
import { hostTarget, urlRewriter } from '../../src/serve/replay/rewrite-url.js';
import { replayHostOrigin } from '../support/replay-hosts.js';

// Rewriting for a page served on its site's own replay host: absolute URLs go to their origin's host at
// the host's timestamp, the same path; URLs the browser resolves there by itself (relative, root-relative)
// are left as written, whatever `<base>` says, and a spelling a browser reads as another host is not.

const BASE = 'http://127.0.0.1:5001';
const TS = '20260101000000';
const PAGE = 'https://site.example/docs/page.html';
const site = replayHostOrigin(BASE, 'https://site.example', TS);
const cdn = replayHostOrigin(BASE, 'https://cdn.example', TS);
const target = hostTarget(replayAddresses(BASE, true), TS);
const rewrite = urlRewriter(PAGE, target);
const html = (source: string) => rewriteHtml(source, { pageUrl: PAGE, target, inject: '' });

describe('rewriting on a replay host', () => {
  it('sends absolute URLs to their origin host at the same path, and leaves those that resolve there by themselves', () => {
    expect(rewrite('https://site.example/pkgs/x.html?q=1#h')).toBe(`${site}/pkgs/x.html?q=1#h`);
    expect(rewrite('https://cdn.example/app.js')).toBe(`${cdn}/app.js`);
    expect(rewrite('//cdn.example/app.js')).toBe(`${cdn}/app.js`);
    expect(rewrite('http://site.example/x')).toBe(`${replayHostOrigin(BASE, 'http://site.example', TS)}/x`);
    for (const same of ['/api/data.json', 'data.json', '../img/a.png', '?q=2', '#top']) expect(rewrite(same), same).toBe(same);
    // Read by browsers as `//cdn.example/...`: rewritten, never left to reach the live host.
    for (const sneaky of ['/\\cdn.example/x.js', '\\\\cdn.example/x.js', '/\t/cdn.example/x.js'])
      expect(rewrite(sneaky), JSON.stringify(sneaky)).toBe(`${cdn}/x.js`);
    expect(rewrite(`${cdn}/already.js`)).toBe(`${cdn}/already.js`);
    expect(rewrite('mailto:a@b.example')).toBe('mailto:a@b.example');
  });

  it('keeps <base href> right: a base on another origin moves with its relative URLs, a relative base stays', () => {
    const cross = html('<base href="https://cdn.example/assets/"><img src="a.png"><a href="/root.html">r</a>');
    expect(cross).toContain(`<base href="${cdn}/assets/">`);
    // The browser resolves them against the rewritten base, on the CDN's host, as it did live against the CDN.
    expect(cross).toContain('<img src="a.png">');
    expect(cross).toContain('<a href="/root.html">');
    const relative = html('<base href="/docs/v2/"><img src="a.png">');
    expect(relative).toBe('<base href="/docs/v2/"><img src="a.png">');
  });

  it('rewrites absolute URLs in style sheets, and leaves relative ones to the sheet', () => {
    const css = rewriteCss(
      'a{background:url(https://cdn.example/bg.png)} b{background:url(img/b.png)}',
      urlRewriter('https://site.example/css/site.css', target),
    );
    expect(css).toBe(`a{background:url("${cdn}/bg.png")} b{background:url(img/b.png)}`);
  });
});
