import { startServer, type TestServer } from './test-server.js';
import { solidPng } from './png.js';

/** The colours the replay tests look for on screen. */
export const COLOURS = { logo: [220, 20, 20], background: [20, 20, 220], frame: [0, 160, 0] } as const satisfies Record<
  string,
  [number, number, number]
>;

/** What the page's script writes once its fetch of /data.json answers. */
export const FETCHED_MESSAGE = 'fetched from the archive';
/** A word only the home page's body has. */
export const BODY_WORD = 'zebrafish';
/** The GBK page's text, as the browser should show it. */
export const GBK_TEXT = '中文网页存档';
const GBK_BYTES = Buffer.from([0xd6, 0xd0, 0xce, 0xc4, 0xcd, 0xf8, 0xd2, 0xb3, 0xb4, 0xe6, 0xb5, 0xb5]);

/**
 * A small site with what replay must get right: an image, a stylesheet whose `url()` draws a
 * background, a script that fetches JSON (found by the crawler through a preload link) and tries a
 * live absolute URL, an iframe, a page in GBK, a link to an archived page and one to a host the
 * crawl never leaves its own for (so it is not archived).
 */
export async function startReplaySite(): Promise<TestServer> {
  const pages = (port: number): Record<string, { type: string; body: string | Buffer }> => ({
    '/': {
      type: 'text/html; charset=utf-8',
      body: `<!doctype html><html><head><meta charset="utf-8"><title>Replay home</title>
<link rel="stylesheet" href="/style.css">
<link rel="preload" href="/data.json" as="fetch" crossorigin>
<script src="/app.js" defer></script>
</head><body>
<h1 id="title">Archived home</h1>
<img id="logo" src="/img/logo.png" width="60" height="60" alt="logo">
<div id="bg"></div>
<p id="fetched">waiting</p>
<p>The quick ${BODY_WORD} swims through the archive.</p>
<p><a id="to-about" href="/about.html">About</a> <a id="to-elsewhere" href="http://localhost:${port}/elsewhere.html">Elsewhere</a> <a id="to-gbk" href="/gbk.html">GBK</a></p>
<iframe id="frame" src="/frame.html" width="200" height="80"></iframe>
</body></html>`,
    },
    '/style.css': {
      type: 'text/css',
      body: 'body{margin:8px;font-family:sans-serif;background:#fff} h1{color:rgb(0,0,128)} #bg{width:60px;height:60px;background:url("img/background.png")} iframe{border:0}',
    },
    '/app.js': {
      type: 'application/javascript',
      body: `fetch('/data.json').then((r) => r.json()).then((d) => { document.getElementById('fetched').textContent = d.message; }, () => { document.getElementById('fetched').textContent = 'fetch failed'; });
fetch('http://127.0.0.1:${port}/live-only.json').catch(() => {});`,
    },
    '/data.json': { type: 'application/json', body: JSON.stringify({ message: FETCHED_MESSAGE }) },
    '/frame.html': {
      type: 'text/html',
      body: '<!doctype html><body style="margin:0;background:rgb(0,160,0)"><p>inside the frame</p></body>',
    },
    '/about.html': {
      type: 'text/html',
      body: '<!doctype html><title>About</title><h1 id="about">About this archive</h1><a href="/">home</a>',
    },
    '/gbk.html': {
      type: 'text/html; charset=gbk',
      body: Buffer.concat([Buffer.from('<!doctype html><title>GBK</title><p id="zh">'), GBK_BYTES, Buffer.from('</p>')]),
    },
    '/img/logo.png': { type: 'image/png', body: solidPng(60, 60, COLOURS.logo) },
    '/img/background.png': { type: 'image/png', body: solidPng(60, 60, COLOURS.background) },
  });
  let routes: ReturnType<typeof pages> | undefined;
  const server = await startServer((_req, res, path) => {
    const page = routes?.[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': page.type }).end(page.body);
  });
  routes = pages(server.port);
  return server;
}
