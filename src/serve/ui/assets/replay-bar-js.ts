// The replay bar follows the frame. The replayed page's shim posts {type, url, ts} to this document
// when a page loads in the frame (and when asked, after each load of the frame). A message counts
// only if it comes from a replay origin of this server (the base one, or on loopback an archived
// site's own host) and from the frame itself; its URL and timestamp are then
// only a question to the UI origin (/api/capture), which answers with a capture the archive really
// has, or nothing. The bar is redrawn with textContent and attributes, never markup, and its links
// are built here from the answer: a page that posts lies can make the bar show another real capture
// at most. Served as a file: the UI's Content-Security-Policy allows no inline script.
export const REPLAY_BAR_JS = `
(function () {
  'use strict';
  var bar = document.getElementById('replay-bar');
  var frame = document.getElementById('replay');
  if (!bar || !frame) return;
  var replayOrigin = bar.getAttribute('data-replay-origin');
  // On loopback each archived site is replayed on a host of its own on the replay port (replay-host.ts).
  var hostsPort = bar.getAttribute('data-replay-hosts-port');
  var REPLAY_HOST = hostsPort && /^\\d+$/.test(hostsPort) ? new RegExp('^http://\\\\d{14}-[a-z2-7]{16}\\\\.crawlite\\\\.localhost:' + hostsPort + '$') : null;
  function fromReplay(origin) { return origin === replayOrigin || (REPLAY_HOST !== null && REPLAY_HOST.test(origin)); }
  var raw = bar.hasAttribute('data-raw');
  // After a fuzzy match, the URL the reader asked for, which the frame will name too.
  var shown = { url: bar.getAttribute('data-url'), ts: bar.getAttribute('data-ts'), requested: bar.getAttribute('data-requested') || '' };
  var TIMESTAMP = /^\\d{14}$/;
  var asked = 0;
  /** The capture last asked about: the frame says where it is more than once per page. */
  var wanted = '';
  /** The document's title after the URL it starts with: the archive's name. */
  var titleRest = document.title.slice((byId('replay-url') || { textContent: '' }).textContent.length);

  function query(url, ts) { return '?url=' + encodeURIComponent(url) + '&ts=' + ts; }
  function framePath(url, ts, asRaw) { return '/replay' + query(url, ts) + (asRaw ? '&raw=1' : ''); }
  function capturePath(url, ts) { return '/capture' + query(url, ts); }
  function byId(id) { return document.getElementById(id); }
  function setText(id, value) { var node = byId(id); if (node) node.textContent = value; }
  function setLink(id, href) {
    var node = byId(id);
    if (!node) return;
    if (href) { node.setAttribute('href', href); node.classList.remove('off'); }
    else { node.removeAttribute('href'); node.classList.add('off'); }
  }

  /** \`pageNamed\`: drawn for a URL a replayed page named, whose text the bar never shows (only the capture's own URL). */
  function draw(facts, pageNamed) {
    shown = { url: facts.url, ts: facts.timestamp, requested: pageNamed ? facts.requested : '' };
    bar.setAttribute('data-url', facts.url);
    bar.setAttribute('data-ts', facts.timestamp);
    // After a fuzzy match the URL asked for, else the archive's own spelling of it.
    var named = facts.fuzzy && !pageNamed ? facts.requested : facts.url;
    setText('replay-url', named);
    byId('replay-url').setAttribute('title', named);
    document.title = named + titleRest;
    setLink('replay-url', capturePath(facts.url, facts.timestamp));
    var fuzzy = byId('replay-fuzzy');
    if (fuzzy) {
      fuzzy.hidden = !facts.fuzzy;
      fuzzy.setAttribute('title', facts.fuzzy ? (pageNamed ? 'no capture of the URL asked for' : 'no capture of ' + facts.requested) + ': fuzzy match, showing a capture of ' + facts.url : '');
    }
    setText('replay-fuzzy-url', facts.url);
    setLink('replay-fuzzy-url', capturePath(facts.url, facts.timestamp));
    var time = byId('replay-time');
    if (time) {
      time.removeAttribute('data-local');
      time.setAttribute('datetime', facts.fetchedAt);
      time.setAttribute('title', facts.fetchedAt);
      time.textContent = facts.fetchedAt;
    }
    setText('replay-position', 'capture ' + (facts.index + 1) + ' of ' + facts.count);
    setLink('replay-prev', facts.prev ? framePath(facts.url, facts.prev, raw) : null);
    setLink('replay-next', facts.next ? framePath(facts.url, facts.next, raw) : null);
    setLink('replay-capture', capturePath(facts.url, facts.timestamp));
    setLink('show-raw', framePath(facts.url, facts.timestamp, true));
    setLink('show-replay', framePath(facts.url, facts.timestamp, false));
    frame.setAttribute('title', (raw ? 'body as captured' : 'replay') + ' of ' + facts.url);
    if (window.crawliteLocalTimes) window.crawliteLocalTimes(bar);
    // The address names what is shown, so reloading or sharing it shows the same capture.
    history.replaceState(null, '', framePath(facts.url, facts.timestamp, raw));
  }

  function follow(url, ts, requested) {
    var ticket = ++asked;
    fetch('/api/capture' + query(requested || url, ts), { headers: { accept: 'application/json' } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (facts) {
        if (ticket !== asked) return;
        wanted = '';
        if (!facts || typeof facts.url !== 'string' || typeof facts.timestamp !== 'string') return;
        // The shim names the capture's own URL: a fuzzy match would only echo text a page chose. Asked
        // for the URL the page was requested at, the answer counts only if it is that same capture.
        if (requested) {
          if (facts.url === url) draw(facts, true);
        } else if (!facts.fuzzy) draw(facts, false);
      })
      .catch(function () {
        // The bar stays as it was.
        if (ticket === asked) wanted = '';
      });
  }

  window.addEventListener('message', function (event) {
    if (!fromReplay(event.origin) || event.source !== frame.contentWindow) return;
    var data = event.data;
    if (!data || typeof data !== 'object' || data.type !== 'crawlite:replay') return;
    var url = data.url;
    var ts = data.ts;
    if (typeof url !== 'string' || typeof ts !== 'string' || !TIMESTAMP.test(ts) || url.length > 8192 || !/^https?:\\/\\//i.test(url)) return;
    var requested = data.requested;
    if (typeof requested !== 'string' || requested === url || requested.length > 8192 || !/^https?:\\/\\//i.test(requested)) requested = '';
    if ((url === shown.url && ts === shown.ts && (!requested || requested === shown.requested)) || ts + ' ' + url + ' ' + requested === wanted) return;
    wanted = ts + ' ' + url + ' ' + requested;
    follow(url, ts, requested);
  });

  // A page that loaded before this script did told nobody: ask the frame again after each load.
  // The question carries nothing, and the frame's origin is the host of whichever site it shows now.
  frame.addEventListener('load', function () {
    try { frame.contentWindow.postMessage('crawlite:where', '*'); } catch (error) { /* no window to ask */ }
  });
  try { frame.contentWindow.postMessage('crawlite:where', '*'); } catch (error) { /* not loaded yet */ }
})();
`;
