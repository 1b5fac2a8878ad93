/*
 * The writer's door for a merge: a shard's captures copied into the output by SQL, a batch of shard
 * URL ids at a time, deciding what CaptureWriter decides for one capture (a capture is the same when
 * its time, status, method and payload are; the later one is the page, and its links and text go with it).
 * The statements read the shard attached as `shard` and the merge's maps: temp.merge_url (shard URL id
 * to output URL id, filled for the batch first), temp.merge_run (shard run id to output run id).
 */
import { CAPTURE_ROW_COLUMNS } from './capture-writer.js';
import type { PageTextLayout } from './convert-page-text.js';
import { resolveLinkTargetsSql } from './resolve-link-targets.js';

/** Columns a response and a capture share, besides url_id, run_id and body_id. */
const CAPTURE_COLUMNS = [...CAPTURE_ROW_COLUMNS, 'links_found', 'links_new', 'revalidated'];
const from = (alias: string) => CAPTURE_COLUMNS.map((column) => `${alias}.${column}`).join(', ');

/**
 * The same capture in the output (x) and the shard (c): same time, status, payload and method. Two
 * captures of one second that differ are both kept (imported WARCs have seconds only).
 */
const sameCapture = (x: string, c: string) =>
  `${x}.fetched_at = ${c}.fetched_at AND ${x}.status = ${c}.status AND ${x}.request_method IS ${c}.request_method
   AND (SELECT hash FROM main.body WHERE id = ${x}.body_id) = (SELECT hash FROM shard.body WHERE id = ${c}.body_id)`;

/** A shard's earlier captures (or its latest, where the output holds a later one) as capture rows, each once. */
const insertCaptures = (source: string, join: string) => `
  INSERT INTO main.capture (url_id, run_id, body_id, ${CAPTURE_COLUMNS.join(', ')})
  SELECT m.out_id, rm.out_id, mb.id, ${from('c')}
  FROM shard.${source} c
  ${join}
  JOIN temp.merge_run rm ON rm.shard_id = c.run_id
  JOIN shard.body sb ON sb.id = c.body_id
  JOIN main.body mb ON mb.hash = sb.hash
  WHERE c.url_id BETWEEN :lo AND :hi
    AND NOT EXISTS (SELECT 1 FROM main.capture x WHERE x.url_id = m.out_id AND ${sameCapture('x', 'c')})
    AND NOT EXISTS (SELECT 1 FROM main.response x WHERE x.url_id = m.out_id AND ${sameCapture('x', 'c')})
  ORDER BY c.url_id, c.fetched_at`;

/** The merge's own map of each shard page against the output's: made by the statements below. */
export const COPY_CAPTURES_TEMP_TABLES = `CREATE TEMP TABLE IF NOT EXISTS merge_win (shard_id INTEGER PRIMARY KEY, out_id INTEGER NOT NULL, cmp INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS temp.merge_win_out ON merge_win (out_id);`;

/** A page's text, then its CJK words and its link share. */
function pageTextSql(layout: PageTextLayout): string[] {
  return [...textRowsSql(layout), ...cjkWordsSql, ...linkShareSql];
}

/** A page's link share goes with its text, as cjkWordsSql's words do. */
const linkShareSql = [
  'DELETE FROM main.page_link_share WHERE url_id IN (SELECT out_id FROM temp.merge_win WHERE cmp = 1)',
  `INSERT INTO main.page_link_share (url_id, link_share)
   SELECT w.out_id, s.link_share FROM shard.page_link_share s JOIN temp.merge_win w ON w.shard_id = s.url_id AND w.cmp >= 0
   WHERE s.url_id BETWEEN :lo AND :hi AND EXISTS (SELECT 1 FROM shard.page_text t WHERE t.url_id = s.url_id)
     AND NOT EXISTS (SELECT 1 FROM main.page_link_share o WHERE o.url_id = w.out_id)`,
];

/**
 * The CJK words of a page go with its text: copied as the shard segmented them (SQL cannot segment). A
 * shard's page stored before it had them has none here either, until `crawlite reindex` of the output.
 */
const cjkWordsSql = [
  'DELETE FROM main.page_text_cjk_words WHERE rowid IN (SELECT out_id FROM temp.merge_win WHERE cmp = 1)',
  `INSERT INTO main.page_text_cjk_words (rowid, title, body)
   SELECT w.out_id, s.title, s.body FROM shard.page_text_cjk_words s JOIN temp.merge_win w ON w.shard_id = s.rowid AND w.cmp >= 0
   WHERE s.rowid BETWEEN :lo AND :hi AND EXISTS (SELECT 1 FROM shard.page_text t WHERE t.url_id = s.rowid)
     AND NOT EXISTS (SELECT 1 FROM main.page_text_cjk_words o WHERE o.rowid = w.out_id)`,
];

/**
 * A later capture's text replaces the output's row, the same capture's only fills a gap. In a compact
 * output (convert-page-text.ts) the rows and both indexes are written here rather than through the
 * view's triggers: a merge runs with trusted_schema off, under which SQLite lets no function crawlite
 * defines (sqlar_compress, sqlar_uncompress) run inside a view or trigger, only in the statement itself.
 */
function textRowsSql(layout: PageTextLayout): string[] {
  const replaced = 'SELECT out_id FROM temp.merge_win WHERE cmp = 1';
  if (layout === 'plain') {
    return [
      // The delete trigger tells the search indexes which text to remove.
      `DELETE FROM main.page_text WHERE url_id IN (${replaced})`,
      `INSERT INTO main.page_text (url_id, url, title, headings, description, body, cjk, text_version)
       SELECT w.out_id, t.url, t.title, t.headings, t.description, t.body, t.cjk, t.text_version
       FROM shard.page_text t JOIN temp.merge_win w ON w.shard_id = t.url_id AND w.cmp >= 0
       WHERE t.url_id BETWEEN :lo AND :hi AND NOT EXISTS (SELECT 1 FROM main.page_text o WHERE o.url_id = w.out_id)`,
    ];
  }
  const old = `SELECT url_id, title, headings, description, CAST(sqlar_uncompress(body, body_size) AS TEXT) AS body, cjk
    FROM main.page_text_zlib WHERE url_id IN (${replaced})`;
  const added = `FROM shard.page_text t JOIN temp.merge_win w ON w.shard_id = t.url_id AND w.cmp >= 0
    WHERE t.url_id BETWEEN :lo AND :hi AND NOT EXISTS (SELECT 1 FROM main.page_text_zlib o WHERE o.url_id = w.out_id)`;
  return [
    // External content: the indexes are told the old text to remove it.
    `INSERT INTO main.page_text_fts (page_text_fts, rowid, title, headings, description, body)
     SELECT 'delete', url_id, title, headings, description, body FROM (${old})`,
    `INSERT INTO main.page_text_trigram (page_text_trigram, rowid, title, body) SELECT 'delete', url_id, title, body FROM (${old}) WHERE cjk = 1`,
    `DELETE FROM main.page_text_zlib WHERE url_id IN (${replaced})`,
    // The indexes first, while the rows still to add are those the output lacks.
    `INSERT INTO main.page_text_fts (rowid, title, headings, description, body) SELECT w.out_id, t.title, t.headings, t.description, t.body ${added}`,
    `INSERT INTO main.page_text_trigram (rowid, title, body) SELECT w.out_id, t.title, t.body ${added} AND t.cjk = 1`,
    `INSERT INTO main.page_text_zlib (url_id, url, title, headings, description, body, body_size, cjk, text_version)
     SELECT w.out_id, t.url, t.title, t.headings, t.description, sqlar_compress(CAST(t.body AS BLOB)), length(CAST(t.body AS BLOB)),
            t.cjk, t.text_version ${added}`,
  ];
}

/** The statements, in order, for the shard URL ids :lo..:hi, into an output whose page_text has `layout`. */
export const copyCapturesSql = (layout: PageTextLayout): string[] => [
  // Bodies by hash: read from the shard only when the output lacks them.
  `INSERT INTO main.body (hash, size, data, sha1)
   SELECT b.hash, b.size, b.data, b.sha1 FROM shard.body b
   WHERE b.id IN (SELECT body_id FROM shard.response WHERE url_id BETWEEN :lo AND :hi
                  UNION SELECT body_id FROM shard.capture WHERE url_id BETWEEN :lo AND :hi)
     AND NOT EXISTS (SELECT 1 FROM main.body x WHERE x.hash = b.hash)
   -- Two rows of one hash (a shard whose index was bypassed) hold the same bytes: the body check hashed both.
   ON CONFLICT (hash) DO NOTHING`,
  insertCaptures('capture', 'JOIN temp.merge_url m ON m.shard_id = c.url_id'),
  // Each shard response against the output's: 1 later (it becomes the latest), 0 the same capture, -1 earlier.
  'DELETE FROM temp.merge_win',
  `INSERT INTO temp.merge_win (shard_id, out_id, cmp)
   SELECT r.url_id, m.out_id,
          CASE WHEN o.url_id IS NULL OR o.fetched_at < r.fetched_at THEN 1 WHEN ${sameCapture('o', 'r')} THEN 0
               WHEN o.fetched_at = r.fetched_at THEN 1 ELSE -1 END
   FROM shard.response r JOIN temp.merge_url m ON m.shard_id = r.url_id LEFT JOIN main.response o ON o.url_id = m.out_id
   WHERE r.url_id BETWEEN :lo AND :hi`,
  insertCaptures('response', 'JOIN temp.merge_win m ON m.shard_id = c.url_id AND m.cmp = -1'),
  // A page's links and text are those of its latest capture, as a crawl keeps them.
  'DELETE FROM main.link WHERE from_id IN (SELECT out_id FROM temp.merge_win WHERE cmp = 1)',
  // A target is named by its text in the shard (its url row's, or the link's own), then by the output's id for
  // that text; one whose row comes in a later batch keeps its text until the last batch resolves it.
  `INSERT INTO main.link (from_id, to_id, to_url, kind, nofollow)
   SELECT w.out_id, coalesce(mu.id, 0), CASE WHEN mu.id IS NULL THEN coalesce(su.url, l.to_url) ELSE '' END, l.kind, l.nofollow
   FROM shard.link l JOIN temp.merge_win w ON w.shard_id = l.from_id AND w.cmp >= 0
   LEFT JOIN shard.url su ON su.id = l.to_id
   LEFT JOIN main.url mu ON mu.url = coalesce(su.url, l.to_url)
   WHERE l.from_id BETWEEN :lo AND :hi AND (su.id IS NOT NULL OR l.to_id = 0)
   ON CONFLICT DO NOTHING`,
  // The last batch (no shard URL above it): every URL is in the output now, so links kept as text get ids.
  ...resolveLinkTargetsSql({ where: 'true', onlyIf: ':hi >= (SELECT coalesce(max(id), :lo) FROM shard.url WHERE id >= :lo)' }),
  ...pageTextSql(layout),
  // The later capture takes the response row; the trigger on response moves the one it replaces into capture.
  `INSERT INTO main.response (url_id, run_id, body_id, ${CAPTURE_COLUMNS.join(', ')})
   SELECT w.out_id, rm.out_id, mb.id, ${from('r')}
   FROM shard.response r
   JOIN temp.merge_win w ON w.shard_id = r.url_id AND w.cmp = 1
   JOIN temp.merge_run rm ON rm.shard_id = r.run_id
   JOIN shard.body sb ON sb.id = r.body_id
   JOIN main.body mb ON mb.hash = sb.hash
   WHERE r.url_id BETWEEN :lo AND :hi
   ON CONFLICT (url_id) DO UPDATE SET run_id = excluded.run_id, body_id = excluded.body_id,
     ${CAPTURE_COLUMNS.map((column) => `${column} = excluded.${column}`).join(', ')}`,
  // What each page looked like when rendered (crawl --browser), with the capture it belongs to.
  `INSERT INTO main.screenshot (url_id, fetched_at, type, data)
   SELECT m.out_id, s.fetched_at, s.type, s.data FROM shard.screenshot s JOIN temp.merge_url m ON m.shard_id = s.url_id
   WHERE s.url_id BETWEEN :lo AND :hi
   ON CONFLICT (url_id, fetched_at) DO NOTHING`,
  // The bounds each render ran into, with the capture they belong to.
  `INSERT INTO main.render_note (url_id, fetched_at, note)
   SELECT m.out_id, n.fetched_at, n.note FROM shard.render_note n JOIN temp.merge_url m ON m.shard_id = n.url_id
   WHERE n.url_id BETWEEN :lo AND :hi
   ON CONFLICT DO NOTHING`,
  // What an imported record said of each capture, with the capture it belongs to.
  `INSERT INTO main.capture_note (url_id, fetched_at, note)
   SELECT m.out_id, n.fetched_at, n.note FROM shard.capture_note n JOIN temp.merge_url m ON m.shard_id = n.url_id
   WHERE n.url_id BETWEEN :lo AND :hi
   ON CONFLICT DO NOTHING`,
];
