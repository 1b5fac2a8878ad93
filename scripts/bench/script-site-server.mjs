#!/usr/bin/env node
// A site built by scripts, for `npm run bench -- --browser`: list pages whose links come from a JSON list
// (50 items a list page, the "next" link built by script too) and item pages that fetch their own JSON and
// show an image of their own. A <noscript> copy of each list gives a plain crawl the same pages, so the two
// crawls of the case fetch the same set; only a browser loads the JSON and the images.
//
//   node scripts/bench/script-site-server.mjs [--pages N] [--port P]
//
// Started by browser.mjs with an IPC channel: it sends {type:'ready', port, pid} once listening, answers
// {type:'stats'} with its counters and {type:'reset'} by zeroing them, and exits when the parent goes away.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { serveAsChild } from './child-server.mjs';

export const PER_LIST = 50;

const { values } = parseArgs({ options: { pages: { type: 'string', default: '500' }, port: { type: 'string', default: '0' } } });
const items = Number(values.pages);
const port = Number(values.port);
if (!Number.isInteger(items) || items < 1 || items > 1_000_000 || !Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write('script-site-server: bad --pages or --port\n');
  process.exit(2);
}
const lists = Math.ceil(items / PER_LIST);

/** A 1x1 PNG. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const LIST_JS = `
const list = Number(new URLSearchParams(location.search).get('page') || '1');
fetch('/api/list/' + list + '.json').then((r) => r.json()).then((data) => {
  const app = document.getElementById('app');
  const h = document.createElement('h1');
  h.textContent = 'Catalogue, page ' + list;
  app.append(h);
  const ul = document.createElement('ul');
  for (const item of data.items) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = '/item/' + item.id;
    a.textContent = item.name;
    li.append(a);
    ul.append(li);
  }
  app.append(ul);
  if (data.next) {
    const next = document.createElement('a');
    next.href = '/?page=' + data.next;
    next.textContent = 'next';
    app.append(next);
  }
});
`;

const ITEM_JS = `
const id = location.pathname.split('/').pop();
fetch('/api/item/' + id + '.json').then((r) => r.json()).then((item) => {
  const h = document.createElement('h1');
  h.textContent = item.name;
  const p = document.createElement('p');
  p.textContent = item.description;
  document.getElementById('app').append(h, p);
});
`;

const CSS = 'body { font-family: sans-serif; margin: 2em; } img { width: 64px; height: 64px; }';
const page = (title, body) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/site.css"></head><body>${body}</body></html>`;
const itemIds = (list) =>
  Array.from({ length: Math.min(PER_LIST, items - (list - 1) * PER_LIST) }, (_, i) => (list - 1) * PER_LIST + i + 1);

function listPage(list) {
  const links = itemIds(list)
    .map((id) => `<li><a href="/item/${id}">Item ${id}</a></li>`)
    .join('');
  const next = list < lists ? `<a href="/?page=${list + 1}">next</a>` : '';
  return page(`Catalogue ${list}`, `<div id="app"></div><noscript><ul>${links}</ul>${next}</noscript><script src="/list.js"></script>`);
}

const fresh = () => ({ requests: 0, pages: 0, json: 0, images: 0, notFound: 0, bytes: 0, connections: 0 });
let stats = fresh();

const server = createServer({ keepAlive: true }, (req, res) => {
  stats.requests += 1;
  const url = new URL(req.url ?? '/', 'http://site.invalid');
  const path = url.pathname;
  const send = (type, body, counter) => {
    if (counter) stats[counter] += 1;
    const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body);
    stats.bytes += buffer.byteLength;
    res.writeHead(200, { 'content-type': type, 'content-length': buffer.byteLength }).end(buffer);
  };
  if (path === '/robots.txt') return send('text/plain', 'User-agent: *\nAllow: /\n');
  if (path === '/') {
    const list = Number(url.searchParams.get('page') ?? '1');
    if (Number.isInteger(list) && list >= 1 && list <= lists) return send('text/html; charset=utf-8', listPage(list), 'pages');
  }
  if (path === '/list.js') return send('application/javascript', LIST_JS);
  if (path === '/item.js') return send('application/javascript', ITEM_JS);
  if (path === '/site.css') return send('text/css', CSS);
  const list = /^\/api\/list\/(\d+)\.json$/.exec(path);
  if (list && Number(list[1]) >= 1 && Number(list[1]) <= lists) {
    const n = Number(list[1]);
    return send(
      'application/json',
      JSON.stringify({ items: itemIds(n).map((id) => ({ id, name: `Item ${id}` })), next: n < lists ? n + 1 : null }),
      'json',
    );
  }
  const item = /^\/item\/(\d+)$/.exec(path);
  if (item && Number(item[1]) >= 1 && Number(item[1]) <= items) {
    return send(
      'text/html; charset=utf-8',
      page(`Item ${item[1]}`, `<div id="app"></div><img src="/img/${item[1]}.png" alt=""><script src="/item.js"></script>`),
      'pages',
    );
  }
  const data = /^\/api\/item\/(\d+)\.json$/.exec(path);
  if (data && Number(data[1]) >= 1 && Number(data[1]) <= items) {
    return send(
      'application/json',
      JSON.stringify({ name: `Item ${data[1]}`, description: `The description of item ${data[1]}, built by script.` }),
      'json',
    );
  }
  if (/^\/img\/\d+\.png$/.test(path)) return send('image/png', PIXEL, 'images');
  stats.notFound += 1;
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
});
server.on('connection', () => {
  stats.connections += 1;
});

serveAsChild(server, port, {
  ready: { items, lists },
  stats: () => stats,
  reset: () => {
    stats = fresh();
  },
});
