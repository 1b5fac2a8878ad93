#!/usr/bin/env node
// Serves the synthetic bench site (site.mjs) on 127.0.0.1 with node:http and keep-alive.
//
//   node scripts/bench/site-server.mjs [--pages N] [--seed S] [--latency MS] [--port P]
//
// Started by bench.mjs with an IPC channel: it sends {type:'ready', port, pid} once listening,
// answers {type:'stats'} with its counters and {type:'reset'} by zeroing them, and exits when
// the parent goes away. Run by hand, it prints {"type":"ready","port":...} as one JSON line on
// stdout and serves until Ctrl-C.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { serveAsChild } from './child-server.mjs';
import { pageHtml, pageNumber, ROBOTS_TXT } from './site.mjs';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    latency: { type: 'string', default: '0' },
    port: { type: 'string', default: '0' },
  },
});
const pages = Number(values.pages);
const seed = Number(values.seed);
const latency = Number(values.latency);
const port = Number(values.port);
for (const [name, value, max] of [
  ['pages', pages, 10_000_000],
  ['seed', seed, 2 ** 32],
  ['latency', latency, 60_000],
  ['port', port, 65_535],
]) {
  if (!Number.isInteger(value) || value < 0 || value > max || (name === 'pages' && value < 1)) {
    process.stderr.write(`site-server: bad --${name}\n`);
    process.exit(2);
  }
}

const fresh = () => ({
  pages: 0,
  robots: 0,
  notFound: 0,
  requests: 0,
  bytes: 0,
  inFlight: 0,
  maxInFlight: 0,
  connections: 0,
  firstAt: 0,
  lastAt: 0,
  area: 0,
});
let stats = fresh();
let origin = 'http://127.0.0.1';
const html = { 'content-type': 'text/html; charset=utf-8' };

/** Requests in flight, integrated over time from the first request to the last response. */
function inFlight(counters, delta) {
  const now = performance.now();
  if (counters.firstAt === 0) counters.firstAt = now;
  else counters.area += counters.inFlight * (now - counters.lastChange);
  counters.lastChange = now;
  counters.inFlight += delta;
  if (delta < 0) counters.lastAt = now;
}

/** What the bench gets: counters, plus the active span and the mean requests in flight over it. */
function report(counters) {
  const { firstAt, lastAt, area, lastChange: _, ...rest } = counters;
  const span = lastAt > firstAt ? lastAt - firstAt : 0;
  return { ...rest, activeS: span / 1_000, avgInFlight: span ? area / span : 0 };
}

function respond(req, res) {
  const path = (req.url ?? '/').split('?')[0];
  let status = 200;
  let headers = html;
  let body;
  if (path === '/robots.txt') {
    stats.robots += 1;
    headers = { 'content-type': 'text/plain; charset=utf-8' };
    body = ROBOTS_TXT;
  } else {
    const n = pageNumber(path, pages);
    if (n >= 0) {
      stats.pages += 1;
      // Absolute links use the address the server listens on, not the Host header: wget2 1.99 sends
      // `Host: 127.0.0.1` without the port, and links built from it would point at port 80.
      body = pageHtml(n, pages, seed, origin);
    } else {
      stats.notFound += 1;
      status = 404;
      body = '<!doctype html><title>Not found</title><p>Not found.</p>\n';
    }
  }
  const buffer = Buffer.from(body);
  stats.bytes += buffer.byteLength;
  res.writeHead(status, { ...headers, 'content-length': buffer.byteLength });
  res.end(req.method === 'HEAD' ? undefined : buffer);
}

const server = createServer({ keepAlive: true }, (req, res) => {
  stats.requests += 1;
  inFlight(stats, +1);
  stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
  const counted = stats; // a reset during the delay must not drive the new counters negative
  res.on('close', () => inFlight(counted, -1));
  if (latency > 0) setTimeout(() => respond(req, res), latency);
  else respond(req, res);
});
server.headersTimeout = 65_000;
server.requestTimeout = 120_000;
server.maxRequestsPerSocket = 0;
server.on('connection', () => {
  stats.connections += 1;
});

serveAsChild(server, port, {
  stats: () => report(stats),
  reset: () => {
    stats = fresh();
  },
  onListening: (listening) => {
    origin = `http://127.0.0.1:${listening}`;
  },
  onStandalone: (listening) => {
    process.stderr.write(`serving ${pages} pages on http://127.0.0.1:${listening}/ (latency ${latency} ms); Ctrl-C to stop\n`);
  },
});
