import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SHIM_SOURCE } from '../../src/serve/replay/replay-shim.js';
import { pathTarget, rewriteSrcset, urlRewriter } from '../../src/serve/replay/rewrite-url.js';

const REPLAY = 'http://127.0.0.1:5001';
const TS = '20261123105533';
const PAGE = 'http://site.example/dir/page.html';

/**
 * Runs the shim against the few browser globals it wraps, each recording the URL it was finally
 * given, as a browser would see it: the page at its replay URL.
 */
function loadShim() {
  const calls: Array<[string, unknown]> = [];
  class XMLHttpRequest {
    open(method: string, url: string) {
      calls.push(['xhr', url]);
      return method;
    }
  }
  class Element {
    attributes: Record<string, unknown> = {};
    setAttribute(name: string, value: unknown) {
      this.attributes[name] = value;
    }
  }
  class HTMLImageElement extends Element {
    private current = '';
    get src() {
      return this.current;
    }
    set src(value: string) {
      this.current = value;
    }
  }
  const window: Record<string, unknown> = {
    fetch: (input: unknown) => calls.push(['fetch', input]),
    open: (url: unknown) => calls.push(['open', url]),
    navigator: { sendBeacon: (url: unknown) => calls.push(['beacon', url]) },
    history: { pushState: (_state: unknown, _title: unknown, url: unknown) => calls.push(['push', url]), replaceState: () => {} },
    XMLHttpRequest,
    Element,
    HTMLImageElement,
  };
  const document = {
    baseURI: `${REPLAY}/${TS}/${PAGE}`,
    currentScript: { src: `${REPLAY}/_crawlite/shim.js`, dataset: { url: PAGE, timestamp: TS } },
  };
  window.window = window;
  window.document = document;
  runInNewContext(SHIM_SOURCE, { window, document, URL, ...window });
  return { window: window as Record<string, any>, calls };
}

const at = (url: string) => `${REPLAY}/${TS}/${url}`;

describe('the replay shim', () => {
  it('rewrites a srcset set by a script as the server rewrites one in the markup, commas inside URLs included', () => {
    const { window } = loadShim();
    const rewrite = urlRewriter(PAGE, pathTarget(REPLAY, TS));
    for (const srcset of [
      'a.png?x=1,2 1x, b.png 2x',
      'a.jpg (( ) 1x, b.jpg 2x',
      'a.jpg 1x,b.jpg,, c.jpg (a,b) 3x , d.jpg',
      ' a.jpg,\tb.jpg,',
    ]) {
      const element = new window.Element();
      element.setAttribute('srcset', srcset);
      expect(element.attributes.srcset).toBe(rewriteSrcset(srcset, rewrite));
    }
  });

  it('points URLs built at run time at the replay origin', () => {
    const { window, calls } = loadShim();
    window.fetch('/api/x?y=1');
    window.fetch('data.json');
    window.fetch('https://cdn.example/lib.js');
    window.fetch(`${REPLAY}/${TS}/http://site.example/already`);
    new window.XMLHttpRequest().open('GET', '/xhr');
    window.navigator.sendBeacon('/beacon');
    window.open('/popup');
    window.history.pushState({}, '', '/pushed');
    expect(calls).toEqual([
      ['fetch', at('http://site.example/api/x?y=1')],
      ['fetch', at('http://site.example/dir/data.json')],
      ['fetch', at('https://cdn.example/lib.js')],
      ['fetch', `${REPLAY}/${TS}/http://site.example/already`],
      ['xhr', at('http://site.example/xhr')],
      ['beacon', at('http://site.example/beacon')],
      ['open', at('http://site.example/popup')],
      ['push', at('http://site.example/pushed')],
    ]);
  });

  it('rewrites URL attributes and properties set by scripts, and leaves other schemes alone', () => {
    const { window } = loadShim();
    const element = new window.Element();
    element.setAttribute('SRC', '/img.png');
    element.setAttribute('srcset', 'a.png 1x, b.png 2x');
    element.setAttribute('href', 'javascript:void(0)');
    element.setAttribute('class', '/not-a-url');
    expect(element.attributes).toEqual({
      SRC: at('http://site.example/img.png'),
      srcset: `${at('http://site.example/dir/a.png')} 1x, ${at('http://site.example/dir/b.png')} 2x`,
      href: 'javascript:void(0)',
      class: '/not-a-url',
    });
    const image = new window.HTMLImageElement();
    image.src = '//cdn.example/i.png';
    expect(image.src).toBe(at('http://cdn.example/i.png'));
    image.src = 'data:image/png;base64,AA';
    expect(image.src).toBe('data:image/png;base64,AA');
  });
});
