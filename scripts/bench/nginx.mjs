// Serves a directory of static files with Debian's nginx on 127.0.0.1: a config written into a temp dir,
// one worker (the other cores are the crawler's), an access log the bench reads for its counters, and a
// stop by PID. A small `sh` watchdog holds nginx's PID and kills it when the bench's pipe to it closes,
// so nginx never outlives the bench, not even a kill -9 of it.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childPids, onCleanup, procSample, which } from './measure.mjs';

export const NGINX_INSTALL = 'apt-get install nginx';
const MIME_TYPES = '/etc/nginx/mime.types';

/** The nginx binary, or undefined. */
export function findNginx() {
  return which('nginx');
}

/** A port free on 127.0.0.1 now (a synthetic site's pages must name it before nginx listens on it). */
export function freePort() {
  return new Promise((resolvePromise, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePromise(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolvePromise) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}

function config(dir, root, port) {
  const mime = existsSync(MIME_TYPES)
    ? `include ${MIME_TYPES};`
    : 'types { text/html html htm; text/css css; application/javascript js; text/plain txt; image/png png; image/svg+xml svg; }';
  // As root, the worker must still read files in a 0700 temp dir: it runs as root too.
  const user = process.getuid?.() === 0 ? 'user root;' : '';
  return `# written by the crawlite bench
daemon off;
master_process on;
worker_processes 1;
${user}
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  ${mime}
  default_type application/octet-stream;
  log_format bench '$msec $status $connection $body_bytes_sent $request_time "$sent_http_content_type" $request_uri';
  access_log ${dir}/access.log bench;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_timeout 60s;
  keepalive_requests 10000000;
  absolute_redirect off;
  server_tokens off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    index index.html;
  }
}
`;
}

const LINE = /^([\d.]+) (\d{3}) (\d+) (\d+) ([\d.]+) "([^"]*)" (.*)$/;

/** Counters of the requests logged since `offset`, in the shape site-server.mjs reports. */
function readCounters(log, offset) {
  const size = existsSync(log) ? statSync(log).size : 0;
  const counters = {
    pages: 0,
    robots: 0,
    notFound: 0,
    serverErrors: 0,
    requests: 0,
    bytes: 0,
    connections: 0,
    activeS: 0,
    avgInFlight: 0,
    maxInFlight: undefined,
    size,
  };
  if (size <= offset) return counters;
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(log, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  const connections = new Set();
  let first = Infinity;
  let last = 0;
  let busy = 0;
  for (const line of buffer.toString('utf8').split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const [, msec, status, connection, bytes, seconds, type, uri] = match;
    counters.requests += 1;
    counters.bytes += Number(bytes);
    connections.add(connection);
    if (status === '404') counters.notFound += 1;
    if (status >= '500') counters.serverErrors += 1;
    if (uri.startsWith('/robots.txt')) counters.robots += 1;
    else if (status === '200' && type.startsWith('text/html')) counters.pages += 1;
    first = Math.min(first, Number(msec) - Number(seconds));
    last = Math.max(last, Number(msec));
    busy += Number(seconds);
  }
  counters.connections = connections.size;
  if (last > first) {
    counters.activeS = last - first;
    counters.avgInFlight = busy / counters.activeS;
  }
  return counters;
}

/**
 * Starts nginx serving `root` (a directory) from a config in `dir`. Resolves to a server handle:
 * origin, pid, reset()/stats() (counters from the access log), cpuS() (master and worker), stop().
 * `port` may be given (a synthetic site's absolute links name it); else a free one is picked.
 */
export async function startNginx(binary, { dir, root, port: wanted }) {
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  const log = join(dir, 'access.log');
  let lastError = '';
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const port = wanted ?? (await freePort());
    const conf = join(dir, 'nginx.conf');
    writeFileSync(conf, config(dir, root, port));
    // The watchdog: prints nginx's PID, then waits for its stdin to close and kills nginx by that PID.
    const script = `"$0" -p "$1" -c "$2" -e "$1/error.log" </dev/null & n=$!; echo $n; cat >/dev/null; kill -TERM $n 2>/dev/null; wait $n`;
    const watchdog = spawn('sh', ['-c', script, binary, dir, conf], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    watchdog.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-4_096);
    });
    const pid = await new Promise((resolvePromise) => {
      let out = '';
      watchdog.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolvePromise(Number(out.trim()));
      });
      watchdog.once('exit', () => resolvePromise(undefined));
    });
    const exited = () => watchdog.exitCode !== null || watchdog.signalCode !== null;
    const stopNow = () => {
      if (pid) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
      watchdog.stdin.destroy();
    };
    const unregister = onCleanup(stopNow);
    let up = false;
    for (let wait = 0; wait < 100 && pid && !exited(); wait += 1) {
      if (await canConnect(port)) {
        up = true;
        break;
      }
      await sleep(100);
    }
    if (up) {
      let offset = 0;
      return {
        kind: 'nginx',
        origin: `http://127.0.0.1:${port}`,
        port,
        pid,
        async reset() {
          offset = readCounters(log, Number.MAX_SAFE_INTEGER).size;
        },
        async stats() {
          await sleep(50); // the worker logs a request just after its last byte
          const { size, ...counters } = readCounters(log, offset);
          return counters;
        },
        cpuS() {
          return [pid, ...childPids(pid)].reduce((sum, each) => sum + (procSample(each)?.cpuS ?? 0), 0);
        },
        async stop() {
          stopNow();
          unregister();
          if (!exited()) await new Promise((resolvePromise) => watchdog.once('exit', resolvePromise));
        },
      };
    }
    stopNow();
    unregister();
    if (!exited()) await new Promise((resolvePromise) => watchdog.once('exit', resolvePromise));
    const errorLog = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
    lastError = `${stderr}${errorLog}`.trim().split('\n').slice(-3).join(' / ');
    if (wanted !== undefined) break; // its pages name that port: no other will do
  }
  throw new Error(`nginx did not start: ${lastError || 'no message'}`);
}
