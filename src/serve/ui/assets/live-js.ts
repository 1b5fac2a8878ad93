// The live page's script, kept as a module so it ships inside dist/ and the bundle alike.
// Served as a file: the UI's Content-Security-Policy allows no inline script. Every value from the
// archive (URLs, patterns, outcomes) goes into the page as text, never as markup.
export const LIVE_JS = `
(function () {
  var root = document.getElementById('live-root');
  if (!root) return;
  var token = root.getAttribute('data-token');
  var refreshMs = Number(root.getAttribute('data-refresh-ms')) || 1000;
  var SVG = 'http://www.w3.org/2000/svg';
  var byId = function (id) { return document.getElementById(id); };
  var running = false;
  var settingsShown = false;
  /** The settings in force, as the crawl last said. */
  var current = {};

  function cell(row, text, className) {
    var td = document.createElement('td');
    if (className) td.className = className;
    if (text instanceof Node) td.appendChild(text); else td.textContent = text == null ? '' : String(text);
    row.appendChild(td);
    return td;
  }
  function fill(tableId, rows, makeRow) {
    var body = byId(tableId).tBodies[0];
    var fresh = document.createElement('tbody');
    rows.forEach(function (item) { var tr = document.createElement('tr'); makeRow(tr, item); fresh.appendChild(tr); });
    body.parentNode.replaceChild(fresh, body);
  }
  function count(n) { return Number(n).toLocaleString('en-US'); }
  function when(iso) { if (!iso) return ''; var d = new Date(iso); return isNaN(d) ? iso : d.toLocaleTimeString(); }

  var PAUSED_BY = { serve: 'from this page', control: 'by crawlite control', disk: 'because free disk fell under --min-free-disk' };
  function stateText(crawl) {
    switch (crawl.state) {
      case 'running': return 'Running (pid ' + crawl.pid + ', since ' + when(crawl.startedAt) + ')';
      case 'paused': return 'Paused ' + (PAUSED_BY[crawl.pausedBy] || (crawl.pausedBy ? 'by ' + crawl.pausedBy : '')) + ' (pid ' + crawl.pid + '): nothing new starts';
      case 'stopping': return 'Stopping: the requests in flight finish, then the crawl ends';
      case 'ended': return 'Not running: the last run ended at ' + when(crawl.updatedAt);
      case 'gone': return 'Not running: the crawl was last heard from at ' + when(crawl.updatedAt) + ' (killed, or its process is gone)';
      default: return 'Not running: no crawl has run on this archive since it could be watched';
    }
  }

  function drawRate(rate) {
    var box = byId('live-rate');
    var counts = rate.counts, most = Math.max.apply(null, counts.concat([1]));
    var width = 300, height = 60, step = width / counts.length;
    var svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    svg.setAttribute('width', String(width));
    svg.setAttribute('height', String(height));
    svg.setAttribute('role', 'img');
    counts.forEach(function (n, i) {
      if (!n) return;
      var bar = document.createElementNS(SVG, 'rect');
      var h = Math.max(1, Math.round((n / most) * height));
      bar.setAttribute('x', String(i * step));
      bar.setAttribute('y', String(height - h));
      bar.setAttribute('width', String(Math.max(1, step - 1)));
      bar.setAttribute('height', String(h));
      svg.appendChild(bar);
    });
    var perBucket = rate.bucketSeconds;
    var lastMinute = counts.slice(-Math.round(60 / perBucket)).reduce(function (a, b) { return a + b; }, 0);
    var all = counts.reduce(function (a, b) { return a + b; }, 0);
    var minutes = counts.length * perBucket / 60;
    svg.setAttribute('aria-label', 'pages done per ' + perBucket + ' s over the last ' + minutes + ' minutes');
    box.replaceChildren(svg);
    byId('live-rate-text').textContent = count(lastMinute) + ' in the last minute (' + (lastMinute / 60).toFixed(1) + ' per second), ' +
      (rate.cut ? 'at least ' : '') + count(all) + ' in the last ' + minutes + ' minutes';
  }

  function show(view) {
    var crawl = view.crawl;
    running = crawl.running;
    var state = byId('live-state');
    state.textContent = stateText(crawl);
    state.setAttribute('data-state', crawl.state);
    byId('live-in-flight').textContent = crawl.running ? count(crawl.inFlight) : '0';
    byId('live-settings').textContent = crawl.concurrency == null ? '' :
      'concurrency ' + crawl.concurrency + ', per host ' + crawl.perHost + ', delay ' + (crawl.delayMs == null ? 'Crawl-delay' : crawl.delayMs + ' ms');
    current = { concurrency: crawl.concurrency, per_host: crawl.perHost, delay_ms: crawl.delayMs };
    if (!settingsShown && crawl.concurrency != null) {
      settingsShown = true;
      byId('live-concurrency').value = crawl.concurrency;
      byId('live-per-host').value = crawl.perHost;
      if (crawl.delayMs != null) byId('live-delay').value = crawl.delayMs;
    }
    byId('live-controls-note').textContent = !view.controls
      ? 'This archive was made by an older crawlite: it can be watched, not steered, until a crawl of this crawlite resumes it.'
      : crawl.running ? 'Each control is a request that the crawl applies within about a second; its outcome shows under Requests.'
      : 'No crawl is running: a request waits for the next run of this archive (crawlite resume).';
    drawRate(view.rate);
    fill('live-queue', view.queue.hosts, function (tr, host) { cell(tr, host.origin || '(unknown)', 'url'); cell(tr, count(host.count), 'num'); });
    byId('live-queue-total').textContent = (view.queue.atLeast ? 'at least ' : '') + count(view.queue.total) + ' URLs queued';
    fill('live-problems', view.problems.reasons, function (tr, row) { cell(tr, row.state); cell(tr, row.code || '(none)'); cell(tr, count(row.count), 'num'); });
    byId('live-problems-note').textContent = view.problems.atLeast ? 'Counted among the first ' + count(view.problems.limit) + ' failed or skipped URLs.' :
      view.problems.reasons.length ? '' : 'None yet.';
    fill('live-exclusions', view.exclusions, function (tr, row) {
      cell(tr, row.pattern, 'url');
      cell(tr, when(row.addedAt));
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'live-include';
      button.textContent = 'Remove';
      button.setAttribute('data-pattern', row.pattern);
      button.addEventListener('click', function () { send({ command: 'include', argument: row.pattern }); });
      cell(tr, button);
    });
    fill('live-requests', view.requests, function (tr, row) {
      tr.setAttribute('data-id', String(row.id));
      cell(tr, row.id, 'num');
      cell(tr, row.command + (row.argument ? ' ' + row.argument : ''), 'url');
      cell(tr, row.requestedBy);
      cell(tr, when(row.requestedAt));
      cell(tr, row.appliedAt ? (row.outcome || 'applied') : running ? 'waiting for the crawl…' : 'waits for the next run', 'outcome');
    });
    fill('live-recent', view.recent, function (tr, row) { cell(tr, row.url, 'url'); cell(tr, row.status, 'num'); cell(tr, when(row.fetchedAt)); });
  }

  function problem(text) {
    var box = byId('live-error');
    box.textContent = text || '';
    box.hidden = !text;
  }

  function poll() {
    fetch('/api/live', { headers: { accept: 'application/json' } })
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || r.status); return j; }); })
      .then(function (view) { problem(''); show(view); }, function (e) { problem('Could not read the crawl: ' + e.message); })
      .then(function () { setTimeout(poll, refreshMs); });
  }

  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-crawlite-token': token }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || r.status); return j; }); });
  }

  function send(body) {
    var sent = byId('live-sent');
    sent.textContent = 'Sending ' + body.command + '…';
    return post('/api/live/control', body).then(function (r) {
      sent.textContent = 'Request #' + r.id + ' (' + r.command + (r.argument ? ' ' + r.argument : '') + ') sent; its outcome shows under Requests once the crawl applies it.';
    }, function (e) { sent.textContent = 'Not sent: ' + e.message; });
  }

  byId('live-pause').addEventListener('click', function () { send({ command: 'pause' }); });
  byId('live-resume').addEventListener('click', function () { send({ command: 'resume' }); });
  byId('live-set').addEventListener('submit', function (event) {
    event.preventDefault();
    // Only what was changed: a setting sent is kept for the crawl's next runs too.
    var settings = {}, changed = 0;
    [['live-concurrency', 'concurrency'], ['live-per-host', 'per_host'], ['live-delay', 'delay_ms']].forEach(function (pair) {
      var value = byId(pair[0]).value.trim();
      if (value === '' || Number(value) === current[pair[1]]) return;
      settings[pair[1]] = Number(value);
      changed += 1;
    });
    if (!changed) { byId('live-sent').textContent = 'Nothing to send: these are the settings in force.'; return; }
    send({ command: 'set', argument: settings });
  });
  var preview = byId('live-preview-result');
  // Enter in the pattern's box previews; only the Exclude button sends the exclusion.
  byId('live-exclude').addEventListener('submit', function (event) {
    event.preventDefault();
    preview.textContent = 'counting…';
    post('/api/live/preview', { pattern: byId('live-pattern').value }).then(function (r) {
      preview.textContent = (r.cut ? 'at least ' : '') + count(r.matches) + ' queued URL' + (r.matches === 1 ? '' : 's') + ' match' +
        (r.cut && r.matches < 1000 ? ' (of the first ' + count(r.scanned) + ' read)' : '');
      preview.setAttribute('data-matches', String(r.matches));
    }, function (e) { preview.textContent = e.message; });
  });
  byId('live-exclude-button').addEventListener('click', function () {
    send({ command: 'exclude', argument: byId('live-pattern').value });
  });
  poll();
})();
`;

export const LIVE_CSS = `
#live-state { font-size: 1.15em; font-weight: 600; }
#live-state[data-state="paused"] { color: #b26b00; }
#live-state[data-state="running"] { color: #1a7f37; }
#live-in-flight.big { font-size: 2em; margin: 0; }
#live-rate svg rect { fill: var(--accent); }
#live-controls form, #live-controls p { margin: .4em 0; }
#live-controls label { margin-right: .8em; }
`;
