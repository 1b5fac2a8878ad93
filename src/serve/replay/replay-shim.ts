import { ORIGIN_KEY_JS } from './shim-origin-key.js';

/**
 * Where replayed HTML pages load the shim from, on the replay origin (not inline, so the page's
 * own markup is all that runs inline).
 */
export const SHIM_PATH = '/_crawlite/shim.js';

/**
 * The shim: a small script at the top of every replayed page that points URLs the page's scripts
 * build at run time at the replay origin, as the server did for the URLs in the markup. It wraps
 * fetch, XMLHttpRequest.open, navigator.sendBeacon, window.open, history.pushState/replaceState,
 * Element.setAttribute and the URL properties of media, link, script, frame and form elements,
 * and refuses service-worker registration. As wombat does, it installs the same wrappers in every
 * same-origin window a page reaches through a frame it creates (about:blank and srcdoc frames run
 * no shim of their own): on `contentWindow`/`contentDocument` and on insertion of an iframe. In the
 * UI's replay frame it posts the page's URL and timestamp to the UI, for the replay bar.
 *
 * It is best effort (a page can still reach an unwrapped window, e.g. through `frames[0]`): what
 * keeps a page from the live web is the browser, not the shim: the Content-Security-Policy on every
 * replayed response (nothing loads from elsewhere), and the sandboxed frame the UI shows it in (no
 * popups, no navigation of the top document; src/serve/replay-frame.ts). The shim makes more of the
 * page work. The page's URL and timestamp come from the script tag's data attributes, the UI's
 * origin too; the replay origin from its own src.
 *
 * A URL is resolved against the document's base, which is a replay URL (the page is served from
 * one, and its `<base>` is rewritten): a relative URL lands on a replay path by itself, an
 * absolute path that escaped (`/api/x`) is taken on the captured page's site, and a live URL is
 * given the page's timestamp. On an archived site's own host (`data-host-timestamp`, replay-host.ts),
 * relative and root-relative URLs are left alone (they resolve to the captured path by themselves), an
 * absolute one goes to its origin's host, whose key the shim computes (shim-origin-key.ts), and
 * document.URL, documentURI, baseURI and referrer read as captured.
 */
export const SHIM_SOURCE = String.raw`(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || window.__crawliteReplay) return;
  var pageUrl = script.dataset.url;
  var timestamp = script.dataset.timestamp;
  var uiOrigin = script.dataset.ui;
  var replayOrigin = new URL(script.src).origin;
  var replayPort = new URL(script.src).port;
  // On an archived site's own host (replay-host.ts): the label's timestamp; undefined on replay paths.
  var hostTimestamp = script.dataset.hostTimestamp;
  var pageOrigin = new URL(pageUrl).origin;
  var REPLAY_HOST = new RegExp('^http://\\d{14}-[a-z2-7]{16}\\.crawlite\\.localhost:' + replayPort + '$');
  /** The archived origins of the hosts this page maps to, by key: to read a host's URL back. */
  var hostOrigins = {};
  var REPLAY_PATH = /^\/\d{1,14}(id_)?\//;

  ${ORIGIN_KEY_JS}

  /** The replay host of an archived (or live) origin, at this host's timestamp. */
  function hostOf(origin) {
    var key = originKey(origin);
    hostOrigins[key] = origin;
    return 'http://' + hostTimestamp + '-' + key + '.crawlite.localhost:' + replayPort;
  }

  /** A replay host's URL as captured (its archived origin, the same path); any other URL as it is. */
  function captured(href) {
    var url;
    try {
      url = new URL(href);
    } catch (error) {
      return href;
    }
    if (!REPLAY_HOST.test(url.origin)) return href;
    var origin = hostOrigins[url.hostname.slice(15, 31)];
    return origin ? origin + url.pathname + url.search + url.hash : href;
  }

  if (hostTimestamp) hostOf(pageOrigin);
  var LEFT_ALONE = /^\s*(#|javascript:|data:|blob:|about:|mailto:|tel:)/i;
  var URL_ATTRIBUTES = { href: 1, src: 1, poster: 1, action: 1, formaction: 1, background: 1, data: 1 };
  var SRCSET_ATTRIBUTES = { srcset: 1, imagesrcset: 1 };

  // A top document: a browser that sent no Fetch Metadata, so the server could not redirect it.
  // Stop here, before any of the page's own markup is parsed, and show it framed instead.
  if (window.parent === window && uiOrigin) {
    window.stop();
    location.replace(uiOrigin + '/replay?url=' + encodeURIComponent(hostTimestamp ? captured(location.href) : pageUrl) + '&ts=' + timestamp);
    return;
  }

  // The replay frame of the UI's page: tell it which capture it shows, so its bar follows the
  // reader's clicks, now and whenever it asks. Only to the UI's origin; the bar checks where a
  // message comes from and shows only captures the archive has, so a page posting its own changes
  // no more than that.
  var parentWindow = window.parent;
  if (parentWindow !== window && parentWindow === window.top && uiOrigin) {
    var tellParent = function () {
      try {
        // On a site's host, also the URL asked for (a search form's query, say), which a fuzzy match may have answered.
        var message = { type: 'crawlite:replay', url: pageUrl, ts: timestamp };
        if (hostTimestamp) message.requested = captured(location.href).replace(/#.*$/, '');
        parentWindow.postMessage(message, uiOrigin);
      } catch (error) {
        // Not framed by the UI after all: nobody to tell.
      }
    };
    tellParent();
    window.addEventListener('message', function (event) {
      if (event.source === parentWindow && event.origin === uiOrigin && event.data === 'crawlite:where') tellParent();
    });
  }

  function install(win) {
    var document = win.document;
    // The document's own base, a replay URL: on a site's host, document.baseURI reads as captured (below).
    var baseURI = win.Node && Object.getOwnPropertyDescriptor(win.Node.prototype, 'baseURI');
    function base() {
      return baseURI && baseURI.get ? baseURI.get.call(document) : document.baseURI;
    }

    function toReplay(value) {
      if (value === null || value === undefined) return value;
      var raw = String(value);
      if (LEFT_ALONE.test(raw)) return value;
      var url;
      try {
        url = new URL(raw, base());
      } catch (error) {
        return value;
      }
      if (hostTimestamp) {
        // Relative and root-relative URLs land on this host by themselves; an absolute one goes to its origin's host.
        if (url.origin === replayOrigin || REPLAY_HOST.test(url.origin)) return value;
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return value;
        return hostOf(url.origin) + url.pathname + url.search + url.hash;
      }
      if (url.origin === replayOrigin) {
        if (REPLAY_PATH.test(url.pathname)) return url.href;
        url = new URL(url.pathname + url.search + url.hash, pageUrl);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return value;
      return replayOrigin + '/' + timestamp + '/' + url.href;
    }

    // HTML's "parse a srcset attribute", as parseSrcset (src/html/srcset.ts) reads it for the crawl and the
    // server: a URL runs to whitespace and loses trailing commas; descriptors run to a comma outside parentheses.
    function srcsetToReplay(value) {
      var s = String(value), end = s.length, i = 0, copied = 0, out = '';
      function space(c) { return c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r'; }
      for (;;) {
        while (i < end && (space(s[i]) || s[i] === ',')) i++;
        if (i >= end) return out + s.slice(copied);
        var start = i;
        while (i < end && !space(s[i])) i++;
        var stop = i;
        if (s[stop - 1] === ',') {
          while (stop > start && s[stop - 1] === ',') stop--;
        } else {
          for (var inParens = false; i < end; i++) {
            if (inParens) { if (s[i] === ')') inParens = false; }
            else if (s[i] === '(') inParens = true;
            else if (s[i] === ',') { i++; break; }
          }
        }
        out += s.slice(copied, start) + toReplay(s.slice(start, stop));
        copied = stop;
      }
    }

    function wrapMethod(owner, name, wrap) {
      if (owner && typeof owner[name] === 'function') owner[name] = wrap(owner[name]);
    }

    function wrapSetter(constructorName, property, map) {
      var constructor = win[constructorName];
      if (!constructor) return;
      var descriptor = Object.getOwnPropertyDescriptor(constructor.prototype, property);
      if (!descriptor || !descriptor.set) return;
      Object.defineProperty(constructor.prototype, property, {
        configurable: true,
        enumerable: descriptor.enumerable,
        get: descriptor.get,
        set: function (value) { descriptor.set.call(this, map(value)); },
      });
    }

    // The frames a page creates share its origin but not its wrappers: install them there too.
    function wrapFrameAccess(constructorName, property) {
      var constructor = win[constructorName];
      if (!constructor) return;
      var descriptor = Object.getOwnPropertyDescriptor(constructor.prototype, property);
      if (!descriptor || !descriptor.get) return;
      Object.defineProperty(constructor.prototype, property, {
        configurable: true,
        enumerable: descriptor.enumerable,
        get: function () {
          var value = descriptor.get.call(this);
          installIn(property === 'contentDocument' ? value && value.defaultView : value);
          return value;
        },
      });
    }

    // A Request's settings, with its body as bytes: handed on as the stream it is, the body would make a
    // streaming upload, which Chromium sends over HTTP/2 only, so the request would fail.
    function requestInit(request, body) {
      return {
        method: request.method, headers: request.headers, body: body, mode: request.mode === 'navigate' ? 'same-origin' : request.mode,
        credentials: request.credentials, cache: request.cache, redirect: request.redirect, referrer: request.referrer,
        referrerPolicy: request.referrerPolicy, integrity: request.integrity, keepalive: request.keepalive, signal: request.signal,
      };
    }

    wrapMethod(win, 'fetch', function (fetch) {
      return function (input, init) {
        var self = this;
        if (typeof win.Request === 'undefined' || !(input instanceof win.Request)) return fetch.call(self, toReplay(input), init);
        var url = toReplay(input.url);
        if (input.body === null || input.body === undefined || input.bodyUsed) return fetch.call(self, new win.Request(url, input), init);
        return input.arrayBuffer().then(function (body) {
          return fetch.call(self, new win.Request(url, requestInit(input, body)), init);
        });
      };
    });
    if (win.XMLHttpRequest) {
      wrapMethod(win.XMLHttpRequest.prototype, 'open', function (open) {
        return function (method, url) {
          var args = Array.prototype.slice.call(arguments);
          args[1] = toReplay(url);
          return open.apply(this, args);
        };
      });
    }
    wrapMethod(win.navigator, 'sendBeacon', function (sendBeacon) {
      return function (url, data) { return sendBeacon.call(this, toReplay(url), data); };
    });
    wrapMethod(win, 'open', function (open) {
      return function (url) {
        var args = Array.prototype.slice.call(arguments);
        if (args.length > 0 && url !== '') args[0] = toReplay(url);
        return open.apply(this, args);
      };
    });
    ['pushState', 'replaceState'].forEach(function (name) {
      wrapMethod(win.history, name, function (change) {
        return function (state, title, url) {
          return arguments.length > 2 && url !== null && url !== undefined ? change.call(this, state, title, toReplay(url)) : change.apply(this, arguments);
        };
      });
    });
    // An archived worker would answer for every capture on the replay origin; the server refuses its script too.
    if (win.ServiceWorkerContainer) {
      win.ServiceWorkerContainer.prototype.register = function () {
        return win.Promise.reject(new win.DOMException('replay registers no service worker', 'SecurityError'));
      };
    }
    if (win.Element) {
      wrapMethod(win.Element.prototype, 'setAttribute', function (setAttribute) {
        return function (name, value) {
          var lower = String(name).toLowerCase();
          if (URL_ATTRIBUTES[lower]) value = toReplay(value);
          else if (SRCSET_ATTRIBUTES[lower]) value = srcsetToReplay(value);
          return setAttribute.call(this, name, value);
        };
      });
    }
    if (win.Node) {
      ['appendChild', 'insertBefore', 'replaceChild'].forEach(function (name) {
        wrapMethod(win.Node.prototype, name, function (insert) {
          return function (node) {
            var result = insert.apply(this, arguments);
            if (node && (node.tagName === 'IFRAME' || node.tagName === 'FRAME')) installIn(node.contentWindow);
            return result;
          };
        });
      });
    }
    [
      ['HTMLImageElement', 'src'], ['HTMLScriptElement', 'src'], ['HTMLIFrameElement', 'src'], ['HTMLFrameElement', 'src'],
      ['HTMLSourceElement', 'src'], ['HTMLMediaElement', 'src'], ['HTMLEmbedElement', 'src'], ['HTMLTrackElement', 'src'],
      ['HTMLInputElement', 'src'], ['HTMLLinkElement', 'href'], ['HTMLAnchorElement', 'href'], ['HTMLAreaElement', 'href'],
      ['HTMLFormElement', 'action'], ['HTMLVideoElement', 'poster'], ['HTMLObjectElement', 'data'],
    ].forEach(function (pair) { wrapSetter(pair[0], pair[1], toReplay); });
    wrapSetter('HTMLImageElement', 'srcset', srcsetToReplay);
    wrapSetter('HTMLSourceElement', 'srcset', srcsetToReplay);
    ['HTMLIFrameElement', 'HTMLFrameElement', 'HTMLObjectElement'].forEach(function (name) {
      wrapFrameAccess(name, 'contentWindow');
      wrapFrameAccess(name, 'contentDocument');
    });
    if (hostTimestamp && win === window) showCapturedAddress(document, base);
    Object.defineProperty(win, '__crawliteReplay', { value: { toReplay: toReplay, pageUrl: pageUrl, timestamp: timestamp } });
  }

  // On a site's own host, location is the captured path, query and fragment already; what names the
  // whole URL on the document is read as captured too. location.href and origin cannot be redefined:
  // they name the replay host.
  function showCapturedAddress(document, base) {
    var nativeReferrer = document.referrer;
    function define(name, get) {
      try {
        Object.defineProperty(document, name, { configurable: true, enumerable: true, get: get });
      } catch (error) {
        // A browser that will not: the replay host's URL shows through.
      }
    }
    function here() {
      return captured(location.href);
    }
    define('URL', here);
    define('documentURI', here);
    define('baseURI', function () { return captured(base()); });
    // The replayed page the reader came from (replay sends same-origin referrers only), else none.
    define('referrer', function () {
      if (!nativeReferrer) return '';
      var shown = captured(nativeReferrer);
      if (shown !== nativeReferrer) return shown;
      var path = /^\/\d{1,14}(?:id_)?\/(https?:\/\/.*)$/.exec(new URL(nativeReferrer).pathname + new URL(nativeReferrer).search);
      return path ? path[1] : '';
    });
  }

  function installIn(child) {
    try {
      if (child && !child.__crawliteReplay) install(child);
    } catch (error) {
      // Another origin's window: not this page's to change.
    }
  }

  install(window);
})();
`;
