import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import zlib from 'node:zlib';

// A fault-injecting HTTP/1.1 server on raw sockets, so it can say things no
// well-behaved HTTP library would: bad status lines, lying Content-Lengths,
// resets mid-body, bombs. One scenario per route; the index at `/` links to
// every one, the CPU-heavy two (/nested, /many-links) through the waits
// described at WAIT_HOPS. Only 127.0.0.1. Every timer is bounded in count and
// time, and cleared when its socket closes or the server does; close() ends
// every socket.

/** A link whose URL is ~100 KB long: it must be skipped, never requested. */
export const LONG_URL_PATH = `/too-long/${'a'.repeat(100_000)}`;
/** Distinct `<a href="/l/N">` targets on /many-links; each answers 404 at once. */
export const MANY_LINKS = 100_000;
/** Unclosed `<div>`s on /nested before its one real link. */
export const NESTED_DIVS = 100_000;
/** Pages found only by parsing a hostile page. */
export const FOLLOW_UPS = { nested: '/nested-target', badUtf8: '/bad-utf8-target', badCharset: '/bad-charset-target' } as const;

/**
 * The crawl comes in three waves, so that the CPU one page costs the crawler
 * cannot blur the timing of another scenario: the index and its scenarios;
 * then /nested (100,000 divs); then /many-links with STALL_PROBE. A wave is
 * reached through /wait/<wave>/0, /wait/<wave>/1, ...: each hop holds its
 * answer up to WAIT_HOLD_MS (less than any sane --timeout) and links to the
 * next until what the wave needs was requested and no other request has been
 * open for QUIET_MS, at most WAIT_HOPS hops; then it links to the wave's pages.
 * That also keeps /many-links' 100,000 queued links from pushing the other
 * pages past --max-pages. A wave takes a few hops on a quiet machine; the
 * rest are room for a loaded one (two timed-out tries can take seconds there).
 */
export const WAIT_HOPS = 30;
export const WAIT_HOLD_MS = 1000;
export const QUIET_MS = 300;
/**
 * Answers nothing, so the client's --timeout alone ends it. /many-links is sent
 * only while a request for it is open (waiting up to 1 s), so the probe is in
 * flight while the crawler processes 100,000 links: how long that request
 * lasts shows whether the crawler kept its timers running meanwhile.
 */
export const STALL_PROBE = '/stall-probe';

/** Declared and sent sizes of the cut-off and trickling bodies. */
export const RESET_MID_BODY = { declared: 10_000, sent: 100 };
export const CL_LONGER = { declared: 1000, sent: 100 };
export const CL_SHORTER = { declared: 10, body: Buffer.from(`0123456789${'X'.repeat(90)}`) };
export const TRICKLE = { declared: 1000, everyMs: 1000 };
export const MANY_HEADERS = 10_000;

/** Deterministic garbage served as text/html. */
export const BINARY_HTML = pseudoRandomBytes(0xbadc0de, 64 * 1024);

/** The Location of each bad redirect route. */
export const BAD_REDIRECTS: Record<string, string> = {
  '/redirect-invalid-url': 'http://[::bad',
  '/redirect-file': 'file:///etc/passwd',
  '/redirect-ftp': 'ftp://example.com/x',
  '/redirect-javascript': 'javascript:alert(1)',
};

/** Bytes of /bad-utf8: valid markup with invalid UTF-8 sequences in text and in one href. */
export const BAD_UTF8_BODY = Buffer.concat([
  Buffer.from('<!doctype html><html><head><title>bad '),
  Buffer.from([0xc3, 0x28, 0xa0, 0xa1]),
  Buffer.from(' utf-8</title></head><body><p>lone continuation '),
  Buffer.from([0x80, 0xbf]),
  Buffer.from(' overlong '),
  Buffer.from([0xc0, 0xaf, 0xe0, 0x80, 0xaf]),
  Buffer.from(' surrogate '),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from(' truncated '),
  Buffer.from([0xe2, 0x82, 0xf0, 0x9f, 0x98]),
  Buffer.from(`</p><a href="${FOLLOW_UPS.badUtf8}">next</a> <a href="/bad-utf8-`),
  Buffer.from([0xff]),
  Buffer.from('">broken href</a></body></html>'),
]);

export const BAD_CHARSET_TITLE = 'café nonsense';

export interface Try {
  /** performance.now() when the request head was read. */
  startedAt: number;
  /** When the response was complete or the socket closed, whichever came first. */
  endedAt?: number;
  /** When its socket closed while this was the socket's latest request (a client giving up closes it; a kept-alive one stays open). */
  closedAt?: number;
}

export interface HostileServer {
  /** Origin with a trailing slash, e.g. http://127.0.0.1:41234/ */
  url: string;
  port: number;
  /** A URL on 127.0.0.1 where nothing listens (connection refused); its origin is not this server's. */
  refusedUrl: string;
  /** Every path the index links to, the long one and the refused URL included. */
  indexLinks: string[];
  /** Every scenario of every wave, as a path on this server (follow-ups, waits and the probe left out). */
  scenarioPaths: string[];
  /** Requests per request target (path and query). */
  hitCount(target: string): number;
  /** Every request target seen, with its hit count. */
  hits: ReadonlyMap<string, number>;
  /** Bytes written to sockets for a request target (status line, headers, body). */
  bytesWritten(target: string): number;
  /** One entry per request of a target, with its start and end. */
  tries(target: string): Try[];
  /** Request lines as received, each cut at 200 characters. */
  requestLines: readonly string[];
  /** Length of the longest request target received. */
  readonly maxTargetLength: number;
  /** Whether a STALL_PROBE request was open when /many-links was sent; undefined until it is. */
  readonly probeOpenAtManyLinks: boolean | undefined;
  readonly totalRequests: number;
  close(): Promise<void>;
}

/** mulberry32: a tiny seeded PRNG, so the garbage is the same on every run. */
function pseudoRandomBytes(seed: number, length: number): Buffer {
  let a = seed >>> 0;
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    bytes[i] = (t ^ (t >>> 14)) & 0xff;
  }
  return bytes;
}

let bomb: Promise<Buffer> | undefined;

/**
 * ~1 MB of gzip that inflates to 1 GiB of zeros, one gzip member. Built once
 * per process by streaming zero chunks through a bounded number of writes.
 */
export function gzipBomb(): Promise<Buffer> {
  bomb ??= new Promise<Buffer>((resolve, reject) => {
    const gzip = zlib.createGzip({ level: 9, strategy: zlib.constants.Z_RLE });
    const chunks: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
    gzip.on('error', reject);
    gzip.on('end', () => resolve(Buffer.concat(chunks)));
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const writes = 256; // 256 x 4 MiB = 1 GiB
    let written = 0;
    const pump = () => {
      while (written < writes) {
        written += 1;
        if (!gzip.write(zeros)) {
          gzip.once('drain', pump);
          return;
        }
      }
      gzip.end();
    };
    pump();
  });
  return bomb;
}

/** The inflated size of gzipBomb(). */
export const GZIP_BOMB_INFLATED = 1024 * 1024 * 1024;

const REASONS: Record<number, string> = { 200: 'OK', 301: 'Moved Permanently', 302: 'Found', 404: 'Not Found' };

function head(status: number, headers: Record<string, string | number>): string {
  const lines = [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Status'}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

const htmlPage = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** One request being answered: writes are counted against its target; timers die with the socket. */
interface Exchange {
  target: string;
  socket: Socket;
  write(data: string | Buffer): void;
  /** A complete, well-formed response: the connection stays open for the next request. */
  respond(status: number, headers: Record<string, string | number>, body: string | Buffer): void;
  /** Runs `fn` once after `ms`, unless the socket or the server closed first. */
  later(ms: number, fn: () => void): void;
  /** Runs `fn` every `ms`, at most `times` times, until it returns false or the socket closes. */
  every(ms: number, times: number, fn: (tick: number) => boolean): void;
  /** Marks the try ended (for timing) without closing anything. */
  ended(): void;
}

type Scenario = (exchange: Exchange) => void;

export async function startHostileServer(): Promise<HostileServer> {
  const bombBody = await gzipBomb();
  const refusedPort = await deadPort();
  const refusedUrl = `http://127.0.0.1:${refusedPort}/refused`;

  const hits = new Map<string, number>();
  const written = new Map<string, number>();
  const triesOf = new Map<string, Try[]>();
  const requestLines: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let maxTargetLength = 0;
  let totalRequests = 0;
  let closing = false;
  let probeOpenAtManyLinks: boolean | undefined;
  /** Open requests other than /wait/ hops, and when the last one ended. */
  let open = 0;
  let lastEnd = performance.now();

  const count = (target: string) => hits.get(target) ?? 0;
  const isWait = (target: string) => target.startsWith('/wait/');
  const isOpen = (target: string) => (triesOf.get(target) ?? []).some((tried) => tried.endedAt === undefined);
  const finishTry = (target: string, tried: Try) => {
    if (tried.endedAt !== undefined) return;
    tried.endedAt = performance.now();
    if (!isWait(target)) {
      open -= 1;
      lastEnd = tried.endedAt;
    }
  };

  const scenarios: Record<string, Scenario> = {
    '/reset-before-headers': (ex) => {
      ex.ended();
      ex.socket.resetAndDestroy();
    },
    '/reset-mid-body': (ex) => {
      ex.write(head(200, { 'Content-Type': 'text/plain', 'Content-Length': RESET_MID_BODY.declared }));
      ex.write(Buffer.alloc(RESET_MID_BODY.sent, 'r'));
      // A moment for the bytes to leave before the RST, which would drop them.
      ex.later(100, () => ex.socket.resetAndDestroy());
    },
    '/no-headers': () => {
      // Reads the request, answers nothing, keeps the socket until the client gives up or close().
    },
    '/trickle': (ex) => {
      ex.write(head(200, { 'Content-Type': 'text/plain', 'Content-Length': TRICKLE.declared }));
      ex.every(TRICKLE.everyMs, TRICKLE.declared, (tick) => {
        ex.write('t');
        return tick < TRICKLE.declared;
      });
    },
    '/gzip-bomb': (ex) => {
      ex.respond(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip', 'Content-Length': bombBody.length }, bombBody);
    },
    '/corrupt-gzip': (ex) => {
      const valid = zlib.gzipSync('<p>soon corrupt</p>');
      const corrupt = Buffer.concat([valid.subarray(0, 10), Buffer.from('this is not a deflate stream at all, not even close')]);
      ex.respond(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip', 'Content-Length': corrupt.length }, corrupt);
    },
    '/cl-shorter-than-body': (ex) => {
      ex.write(
        Buffer.concat([Buffer.from(head(200, { 'Content-Type': 'text/plain', 'Content-Length': CL_SHORTER.declared })), CL_SHORTER.body]),
      );
      ex.ended();
      ex.socket.end();
    },
    '/cl-longer-than-body': (ex) => {
      ex.write(head(200, { 'Content-Type': 'text/plain', 'Content-Length': CL_LONGER.declared }));
      ex.write(Buffer.alloc(CL_LONGER.sent, 'c'));
      ex.ended();
      ex.socket.end();
    },
    '/bad-status-line': (ex) => {
      ex.write('HTTP/1.1 2OO OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok');
      ex.ended();
      ex.socket.end();
    },
    '/many-headers': (ex) => {
      const lines = ['HTTP/1.1 200 OK', 'Content-Type: text/plain', 'Content-Length: 2'];
      for (let i = 0; i < MANY_HEADERS; i += 1) lines.push(`X-Header-${i}: value-${i}`);
      ex.write(`${lines.join('\r\n')}\r\n\r\nok`);
      ex.ended();
      ex.socket.end();
    },
    '/redirect-no-location': (ex) => {
      ex.respond(
        302,
        { 'Content-Type': 'text/html; charset=utf-8' },
        htmlPage('moved, but where?', '<a href="/from-302-body">not a redirect target</a>'),
      );
    },
    ...Object.fromEntries(
      Object.entries(BAD_REDIRECTS).map(([path, location]): [string, Scenario] => [
        path,
        (ex) => ex.respond(301, { Location: location, 'Content-Type': 'text/plain', 'Content-Length': 0 }, ''),
      ]),
    ),
    '/binary-html': (ex) => {
      ex.respond(200, { 'Content-Type': 'text/html' }, BINARY_HTML);
    },
    '/nested': (ex) => {
      const broken = [
        '<div<div>',
        '</ div>',
        '<p =x>',
        '<a href>empty href</a>',
        '</>',
        '<3 <<>>',
        '< div>',
        '<div/////>',
        '<table><tr><td></p></b></i></table>',
        '<![CDATA[ x ]]>',
        '<?php echo 1 ?>',
        '<!---->',
        '&#xZZZ; &unknown; &amp &#99999999;',
        '<b><i><u></b></i></u>',
        "<img src='x.png' alt=a=b=c>",
        '</div></div></span>',
      ].join('');
      const parts: string[] = ['<!doctype html><html><head><title>nested</title></head><body>'];
      for (let i = 0; i < NESTED_DIVS; i += 1) parts.push(i % 1000 === 999 ? `<div>${broken}` : '<div>');
      parts.push(`<a href="${FOLLOW_UPS.nested}">the one real link</a>`);
      ex.respond(200, { 'Content-Type': 'text/html; charset=utf-8' }, parts.join(''));
    },
    '/many-links': (ex) => {
      // Sent once a STALL_PROBE request is open (at most 1 s, less than any sane --timeout).
      const send = () => {
        probeOpenAtManyLinks = isOpen(STALL_PROBE);
        const links: string[] = [];
        for (let i = 0; i < MANY_LINKS; i += 1) links.push(`<a href="/l/${i}">${i}</a>`);
        ex.respond(200, { 'Content-Type': 'text/html; charset=utf-8' }, htmlPage('many links', links.join('\n')));
      };
      if (isOpen(STALL_PROBE)) return send();
      ex.every(20, 50, (tick) => {
        if (!isOpen(STALL_PROBE) && tick < 50) return true;
        send();
        return false;
      });
    },
    [STALL_PROBE]: () => {
      // Like /no-headers: the client's --timeout alone ends it.
    },
    '/bad-utf8': (ex) => {
      ex.respond(200, { 'Content-Type': 'text/html; charset=utf-8' }, BAD_UTF8_BODY);
    },
    '/bad-charset': (ex) => {
      ex.respond(
        200,
        { 'Content-Type': 'text/html; charset=nonsense-9' },
        htmlPage(BAD_CHARSET_TITLE, `<a href="${FOLLOW_UPS.badCharset}">next</a>`),
      );
    },
    ...Object.fromEntries(
      Object.values(FOLLOW_UPS).map((path): [string, Scenario] => [
        path,
        (ex) => ex.respond(200, { 'Content-Type': 'text/html; charset=utf-8' }, htmlPage(path, '<p>reached</p>')),
      ]),
    ),
  };

  const laterWaves = new Set<string>([...Object.values(FOLLOW_UPS), '/nested', '/many-links', STALL_PROBE]);
  const firstWave = Object.keys(scenarios).filter((path) => !laterWaves.has(path));
  const indexLinks = [...firstWave, '/wait/2/0', LONG_URL_PATH, refusedUrl];
  scenarios['/'] = (ex) =>
    ex.respond(
      200,
      { 'Content-Type': 'text/html; charset=utf-8' },
      htmlPage('hostile index', indexLinks.map((href) => `<a href="${href}">scenario</a>`).join('\n')),
    );

  const waves: Record<string, { links: string[]; needs: string[] }> = {
    '2': { links: ['/nested', '/wait/3/0'], needs: [...firstWave, FOLLOW_UPS.badUtf8, FOLLOW_UPS.badCharset] },
    '3': { links: ['/many-links', STALL_PROBE], needs: ['/nested', FOLLOW_UPS.nested] },
  };
  const quiet = (needs: string[]) => needs.every((path) => count(path) > 0) && open === 0 && performance.now() - lastEnd >= QUIET_MS;
  const wait =
    (wave: string, hop: number): Scenario =>
    (ex) => {
      const { links, needs } = waves[wave]!;
      const answer = () => {
        const next = quiet(needs) || hop >= WAIT_HOPS - 1 ? links : [`/wait/${wave}/${hop + 1}`];
        ex.respond(
          200,
          { 'Content-Type': 'text/html; charset=utf-8' },
          htmlPage(`wave ${wave}, hop ${hop}`, next.map((href) => `<a href="${href}">next</a>`).join(' ')),
        );
      };
      const ticks = WAIT_HOLD_MS / 50;
      ex.every(50, ticks, (tick) => {
        if (!quiet(needs) && tick < ticks) return true;
        answer();
        return false;
      });
    };

  const notFound: Scenario = (ex) => ex.respond(404, { 'Content-Type': 'text/plain' }, 'not found');

  const server: Server = createServer((socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    const socketTimers = new Set<NodeJS.Timeout>();
    let buffered = Buffer.alloc(0);
    let busy = false;
    let current: Try | undefined;
    let currentTarget = '';
    const endTry = () => {
      if (current) finishTry(currentTarget, current);
    };
    const clearSocketTimers = () => {
      for (const timer of socketTimers) {
        clearTimeout(timer);
        clearInterval(timer);
        timers.delete(timer);
      }
      socketTimers.clear();
    };
    socket.on('error', () => {
      // Resets from the client are part of the game.
    });
    socket.on('close', () => {
      endTry();
      if (current) current.closedAt ??= performance.now();
      clearSocketTimers();
      sockets.delete(socket);
    });

    const exchange = (target: string, tried: Try): Exchange => {
      const track = (timer: NodeJS.Timeout) => {
        socketTimers.add(timer);
        timers.add(timer);
      };
      const untrack = (timer: NodeJS.Timeout) => {
        socketTimers.delete(timer);
        timers.delete(timer);
      };
      const ex: Exchange = {
        target,
        socket,
        write(data) {
          if (socket.destroyed || !socket.writable) return;
          written.set(target, (written.get(target) ?? 0) + Buffer.byteLength(data));
          socket.write(data);
        },
        respond(status, headers, body) {
          const payload = typeof body === 'string' ? Buffer.from(body) : body;
          const all = { 'Content-Length': payload.length, ...headers };
          ex.write(Buffer.concat([Buffer.from(head(status, all)), payload]));
          finishTry(target, tried);
          busy = false;
          setImmediate(readRequests);
        },
        later(ms, fn) {
          const timer = setTimeout(() => {
            untrack(timer);
            if (!socket.destroyed && !closing) fn();
          }, ms);
          track(timer);
        },
        every(ms, times, fn) {
          let tick = 0;
          const timer = setInterval(() => {
            tick += 1;
            if (socket.destroyed || closing || !fn(tick) || tick >= times) {
              clearInterval(timer);
              untrack(timer);
            }
          }, ms);
          track(timer);
        },
        ended() {
          finishTry(target, tried);
        },
      };
      return ex;
    };

    /** Reads request heads one at a time (no pipelining): a request waits while the previous one is answered. */
    const readRequests = () => {
      while (!busy && !socket.destroyed) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) {
          // A head over 1 MiB is not a request this server will read.
          if (buffered.length > 1024 * 1024) socket.destroy();
          return;
        }
        const requestHead = buffered.subarray(0, end).toString('latin1');
        buffered = buffered.subarray(end + 4);
        const lineEnd = requestHead.indexOf('\r\n');
        const requestLine = lineEnd < 0 ? requestHead : requestHead.slice(0, lineEnd);
        const [, target = ''] = requestLine.split(' ');
        totalRequests += 1;
        requestLines.push(requestLine.slice(0, 200));
        maxTargetLength = Math.max(maxTargetLength, target.length);
        hits.set(target, count(target) + 1);
        const tried: Try = { startedAt: performance.now() };
        triesOf.set(target, [...(triesOf.get(target) ?? []), tried]);
        current = tried;
        currentTarget = target;
        busy = true;
        if (!isWait(target)) open += 1;
        const waitHop = /^\/wait\/(\d+)\/(\d+)$/.exec(target);
        const scenario =
          scenarios[target] ??
          (waitHop && waves[waitHop[1]!] && Number(waitHop[2]) < WAIT_HOPS ? wait(waitHop[1]!, Number(waitHop[2])) : notFound);
        scenario(exchange(target, tried));
      }
    };

    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      // Requests queued behind an unanswered one are kept, up to a point.
      if (buffered.length > 2 * 1024 * 1024) socket.destroy();
      else readRequests();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    refusedUrl,
    indexLinks,
    scenarioPaths: [...firstWave, '/nested', '/many-links'],
    hitCount: count,
    hits,
    bytesWritten: (target) => written.get(target) ?? 0,
    tries: (target) => triesOf.get(target) ?? [],
    requestLines,
    get maxTargetLength() {
      return maxTargetLength;
    },
    get totalRequests() {
      return totalRequests;
    },
    get probeOpenAtManyLinks() {
      return probeOpenAtManyLinks;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const timer of timers) {
          clearTimeout(timer);
          clearInterval(timer);
        }
        timers.clear();
        for (const socket of sockets) socket.destroy();
        sockets.clear();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 where nothing listens: bound, noted, released. */
async function deadPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
