import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { startServer, type TestServer } from './test-server.js';

/** The items the JSON answers with, and what the page writes for each way it asked: `names: alpha, beta`. */
export const ITEMS = [{ name: 'alpha' }, { name: 'beta' }];
export const BUILT = 'names: alpha, beta';
/** What the archive answered a POST of /api/items.json with body POSTED_BODY (imported from a WARC), as the page writes it. */
export const POSTED_BODY = 'q=1';
export const POSTED_ITEMS = [{ name: 'posted' }];
export const POSTED = 'names: posted';

/**
 * The ways the page's script asks for /api/items.json, each writing what it got into `#<id>`:
 * a built list, `status NNN`, or `failed`. The absolute ones name the live origin, which is
 * stopped by the time the page is replayed.
 */
export const ASKS = [
  'fetch-path',
  'fetch-relative',
  'fetch-absolute',
  'fetch-request',
  'fetch-url-object',
  'xhr-path',
  'xhr-relative',
  'xhr-absolute',
  'fetch-absolute-request',
  'fetch-protocol-relative',
  'fetch-location-origin',
  'xhr-url-object',
  'fetch-post',
  'fetch-post-request',
  'fetch-missing',
] as const;

/** A page whose content its script builds from JSON it fetches (fetch, Request, URL, XMLHttpRequest; paths, relative and absolute URLs). */
function appPage(origin: string): string {
  const slots = ASKS.map((id) => `<li id="${id}">waiting</li>`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>built by script</title></head><body>
<ul id="built">${slots}</ul>
<script>
function show(id, text) { document.getElementById(id).textContent = text; }
function names(items) { return 'names: ' + items.map(function (item) { return item.name; }).join(', '); }
function viaFetch(id, input, init) {
  fetch(input, init).then(function (r) { return r.ok ? r.json().then(function (items) { show(id, names(items)); }) : show(id, 'status ' + r.status); }, function () { show(id, 'failed'); });
}
function viaXhr(id, url) {
  var xhr = new XMLHttpRequest();
  xhr.open('GET', url);
  xhr.onload = function () { show(id, xhr.status === 200 ? names(JSON.parse(xhr.responseText)) : 'status ' + xhr.status); };
  xhr.onerror = function () { show(id, 'failed'); };
  xhr.send();
}
viaFetch('fetch-path', '/api/items.json');
viaFetch('fetch-relative', 'api/items.json');
viaFetch('fetch-absolute', '${origin}/api/items.json');
viaFetch('fetch-request', new Request('/api/items.json'));
viaFetch('fetch-url-object', new URL('${origin}/api/items.json'));
viaXhr('xhr-path', '/api/items.json');
viaXhr('xhr-relative', 'api/items.json');
viaXhr('xhr-absolute', '${origin}/api/items.json');
viaFetch('fetch-absolute-request', new Request('${origin}/api/items.json'));
viaFetch('fetch-protocol-relative', '//${origin.slice('http://'.length)}/api/items.json');
viaFetch('fetch-location-origin', location.origin + '/api/items.json');
viaXhr('xhr-url-object', new URL('${origin}/api/items.json'));
viaFetch('fetch-post', '/api/items.json', { method: 'POST', body: '${POSTED_BODY}' });
try {
  viaFetch('fetch-post-request', new Request('${origin}/api/items.json', { method: 'POST', body: 'q=2' }));
} catch (error) {
  show('fetch-post-request', 'threw ' + error.name);
}
viaFetch('fetch-missing', '/api/missing.json');
</script></body></html>`;
}

/** The site: /app.html and the JSON it reads, /api/items.json (POST answers too, live: replay must never ask). */
export function startScriptBuiltSite(): Promise<TestServer> {
  return startServer((req, res, path) => {
    const origin = `http://${req.headers.host}`;
    if (path === '/app.html') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(appPage(origin));
    if (path === '/api/items.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ITEMS));
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
}

/** One uncompressed WARC record. */
function warcRecord(type: string, url: string, date: string, block: string): Buffer {
  const fields = [`WARC-Type: ${type}`, `WARC-Record-ID: <urn:uuid:${randomUUID()}>`, `WARC-Date: ${date}`, `WARC-Target-URI: ${url}`];
  fields.push(`Content-Type: application/http; msgtype=${type}`, `Content-Length: ${Buffer.byteLength(block)}`);
  return Buffer.from(`WARC/1.1\r\n${fields.join('\r\n')}\r\n\r\n${block}\r\n\r\n`);
}

/** A WARC holding a POST of `origin`/api/items.json with POSTED_BODY and its answer, POSTED_ITEMS: what an import adds to the crawl. */
export function writePostWarc(path: string, origin: string): void {
  const url = `${origin}/api/items.json`;
  const date = new Date().toISOString();
  const json = JSON.stringify(POSTED_ITEMS);
  const request = `POST /api/items.json HTTP/1.1\r\nHost: ${new URL(origin).host}\r\nContent-Type: text/plain;charset=UTF-8\r\nContent-Length: ${POSTED_BODY.length}\r\n\r\n${POSTED_BODY}`;
  const response = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n${json}`;
  writeFileSync(path, Buffer.concat([warcRecord('request', url, date, request), warcRecord('response', url, date, response)]));
}
