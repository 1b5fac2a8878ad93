#!/usr/bin/env -S node --max-semi-space-size=4
// The stack floor: the essential work of a crawl on crawlite's own stack (undici, htmlparser2, node:crypto,
// better-sqlite3 with FTS5), in one thread, written plainly. No crash safety (the frontier is in memory),
// no resume, no politeness, no scope rules beyond same-origin, no retries. What crawlite spends above this
// is what its pipeline, its guarantees and its bookkeeping cost.
//
//   node scripts/bench/stack-floor.mjs ROOT --db PATH [-c C] [--no-text]
//
// Prints one JSON line {"pages":N,"requests":M} on stdout; on any error one line on stderr and exit 1.
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Tokenizer } from 'htmlparser2';
import { Agent, request } from 'undici';

/** Pages written per transaction. */
const BATCH = 200;
/** Bounds, so that no site can keep the floor running or growing forever. */
const MAX_URLS = 5_000_000;
const MAX_BODY_BYTES = 64 * 2 ** 20;
/** Which attribute of which tag carries a URL. */
const URL_ATTRIBUTE = { a: 'href', link: 'href', img: 'src', script: 'src', iframe: 'src' };

const SCHEMA = `
CREATE TABLE url (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, state TEXT NOT NULL, depth INTEGER NOT NULL) STRICT;
CREATE TABLE body (id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, data BLOB NOT NULL) STRICT;
CREATE TABLE response (id INTEGER PRIMARY KEY, url_id INTEGER NOT NULL REFERENCES url (id), status INTEGER NOT NULL,
  headers TEXT NOT NULL, body_id INTEGER NOT NULL REFERENCES body (id), fetched_at INTEGER NOT NULL) STRICT;
CREATE TABLE link (from_id INTEGER NOT NULL REFERENCES url (id), to_url TEXT NOT NULL, kind TEXT NOT NULL,
  PRIMARY KEY (from_id, to_url)) STRICT, WITHOUT ROWID;`;

// As migrations/0006_text.sql: external-content FTS5 kept in step by triggers, in the writing transaction.
const TEXT_SCHEMA = `
CREATE TABLE page_text (url_id INTEGER PRIMARY KEY, title TEXT, body TEXT NOT NULL) STRICT;
CREATE VIRTUAL TABLE page_text_fts USING fts5(title, body, content="page_text", content_rowid="url_id",
  tokenize="porter unicode61 remove_diacritics 2");
CREATE TRIGGER page_text_insert AFTER INSERT ON page_text BEGIN
  INSERT INTO page_text_fts (rowid, title, body) VALUES (new.url_id, new.title, new.body);
END;
CREATE TRIGGER page_text_delete AFTER DELETE ON page_text BEGIN
  INSERT INTO page_text_fts (page_text_fts, rowid, title, body) VALUES ('delete', old.url_id, old.title, old.body);
END;`;

function options() {
  const { values, positionals } = parseArgs({
    options: {
      db: { type: 'string' },
      concurrency: { type: 'string', short: 'c', default: '16' },
      'no-text': { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  if (positionals.length !== 1 || !values.db) throw new Error('usage: stack-floor.mjs ROOT --db PATH [-c C] [--no-text]');
  const root = new URL(positionals[0]);
  if (root.hostname !== '127.0.0.1' || root.protocol !== 'http:') throw new Error(`only http://127.0.0.1 sites, not ${root.href}`);
  const concurrency = Number(values.concurrency);
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > 1024)
    throw new Error(`-c must be 1 to 1024, not ${values.concurrency}`);
  root.hash = '';
  return { root, db: values.db, concurrency, text: !values['no-text'] };
}

function openArchive(path, text) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  if (text) db.exec(TEXT_SCHEMA);
  // Every statement prepared once.
  const s = {
    addUrl: db.prepare("INSERT INTO url (url, state, depth) VALUES (?, 'queued', ?) ON CONFLICT (url) DO NOTHING"),
    urlId: db.prepare('SELECT id FROM url WHERE url = ?').pluck(),
    setState: db.prepare('UPDATE url SET state = ? WHERE id = ?'),
    addBody: db.prepare('INSERT INTO body (sha256, data) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING'),
    bodyId: db.prepare('SELECT id FROM body WHERE sha256 = ?').pluck(),
    addResponse: db.prepare('INSERT INTO response (url_id, status, headers, body_id, fetched_at) VALUES (?, ?, ?, ?, ?)'),
    addLink: db.prepare('INSERT INTO link (from_id, to_url, kind) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
    addText: text ? db.prepare('INSERT INTO page_text (url_id, title, body) VALUES (?, ?, ?)') : undefined,
  };
  return { db, s };
}

/**
 * Links (tag, raw URL), title and visible text of an HTML page, in one pass of htmlparser2's Tokenizer,
 * as crawlite drives it (src/html/extract-page.ts): its Parser would also build an attribute object per
 * tag and an element stack, work a crawler need not do. The Tokenizer still decodes entities and reads
 * script, style and title as raw text. Callbacks get offsets into `html`; only what is used is sliced.
 */
function parsePage(html, withText) {
  const links = [];
  const text = [];
  let title = '';
  let tag = '';
  let wanted; // the URL attribute of the open tag, if it has one
  let attribute; // the name of the attribute being read, when the open tag has a URL attribute
  let value = '';
  let found; // the wanted attribute's value (the first one, as browsers read it)
  let inTitle = false;
  let hidden = false; // inside script or style: not visible text (they cannot nest)
  const opened = () => {
    if (found) links.push([tag, found]);
    if (tag === 'title') inTitle = true;
    else if (tag === 'script' || tag === 'style') hidden = true;
  };
  const addText = (chunk) => {
    if (inTitle) title += chunk;
    else if (withText && !hidden) text.push(chunk);
  };
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        tag = html.slice(start, end).toLowerCase();
        wanted = URL_ATTRIBUTE[tag];
        found = undefined;
      },
      onattribname(start, end) {
        attribute = wanted && html.slice(start, end).toLowerCase();
        value = '';
      },
      onattribdata(start, end) {
        if (wanted && attribute === wanted) value += html.slice(start, end);
      },
      onattribentity(codepoint) {
        if (wanted && attribute === wanted) value += String.fromCodePoint(codepoint);
      },
      onattribend() {
        if (wanted && attribute === wanted && found === undefined) found = value;
      },
      onopentagend: opened,
      onselfclosingtag: opened,
      onclosetag(start, end) {
        const name = html.slice(start, end).toLowerCase();
        if (name === 'title') inTitle = false;
        else if (name === 'script' || name === 'style') hidden = false;
      },
      ontext: (start, end) => addText(html.slice(start, end)),
      ontextentity: (codepoint) => addText(String.fromCodePoint(codepoint)),
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onprocessinginstruction() {},
      onend() {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  const collapse = (chunk) => chunk.replace(/\s+/g, ' ').trim();
  return { links, title: collapse(title), text: withText ? collapse(text.join(' ')) : undefined };
}

async function crawl({ root, db: path, concurrency, text }) {
  const { db, s } = openArchive(path, text);
  const agent = new Agent({
    connections: concurrency,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
    maxResponseSize: MAX_BODY_BYTES,
  });
  const seen = new Set();
  const queue = []; // [url, depth], BFS order; `next` walks it so nothing is shifted
  let next = 0;
  let inFlight = 0;
  let pages = 0;
  let requests = 0;
  let uncommitted = 0;

  /** Records a URL the first time it is seen: in memory for dedup, in the url table for the archive. */
  const discover = (href, depth) => {
    if (seen.has(href) || seen.size >= MAX_URLS) return;
    seen.add(href);
    s.addUrl.run(href, depth);
    queue.push([href, depth]);
  };
  /** The absolute URL without its fragment, or undefined when it does not parse. */
  const resolve = (raw, base) => {
    try {
      const url = new URL(raw, base);
      url.hash = '';
      return url;
    } catch {
      return undefined;
    }
  };
  const sameOrigin = (url) => url !== undefined && url.origin === root.origin;

  const fetchOne = async (href, depth) => {
    requests += 1;
    const response = await request(href, { dispatcher: agent, headers: { 'user-agent': 'crawlite-stack-floor', accept: '*/*' } });
    const body = Buffer.from(await response.body.arrayBuffer());
    const id = s.urlId.get(href);
    const sha256 = createHash('sha256').update(body).digest('hex');
    s.addBody.run(sha256, body);
    s.addResponse.run(id, response.statusCode, JSON.stringify(response.headers), s.bodyId.get(sha256), Date.now());
    s.setState.run('done', id);
    const location = response.headers.location;
    if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
      const target = resolve(location, href);
      if (sameOrigin(target)) discover(target.href, depth + 1);
    }
    const type = String(response.headers['content-type'] ?? '');
    if (response.statusCode >= 200 && response.statusCode < 300 && type.startsWith('text/html')) {
      const page = parsePage(body.toString('utf8'), text);
      // One row per distinct target of a page, as crawlite keeps them (links repeat: menus, indexes).
      const targets = new Set();
      for (const [kind, raw] of page.links) {
        const target = resolve(raw, href);
        if (target === undefined || targets.has(target.href)) continue;
        targets.add(target.href);
        s.addLink.run(id, target.href, kind);
        if (sameOrigin(target)) discover(target.href, depth + 1);
      }
      if (text) s.addText.run(id, page.title, page.text);
      pages += 1;
      uncommitted += 1;
      if (uncommitted >= BATCH) {
        db.exec('COMMIT; BEGIN');
        uncommitted = 0;
      }
    }
  };

  // robots.txt first, stored like any response (not obeyed: the floor has no politeness).
  db.exec('BEGIN');
  const robots = new URL('/robots.txt', root).href;
  seen.add(robots);
  s.addUrl.run(robots, 0);
  await fetchOne(robots, 0).catch((error) => {
    throw new Error(`${robots}: ${error.message}`);
  });
  discover(root.href, 0);

  // At most C requests in flight; the first error stops the crawl.
  await new Promise((resolveCrawl, rejectCrawl) => {
    let failed = false;
    const pump = () => {
      while (!failed && inFlight < concurrency && next < queue.length) {
        const [href, depth] = queue[next];
        next += 1;
        inFlight += 1;
        fetchOne(href, depth).then(
          () => {
            inFlight -= 1;
            pump();
          },
          (error) => {
            failed = true;
            rejectCrawl(new Error(`${href}: ${error.message}`));
          },
        );
      }
      if (!failed && inFlight === 0 && next === queue.length) resolveCrawl();
    };
    pump();
  });
  db.exec('COMMIT');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  await agent.close();
  return { pages, requests };
}

try {
  const result = await crawl(options());
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  process.stderr.write(`stack-floor: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
