import type { Database } from 'better-sqlite3';
import { linkKindSql } from '../archive/link-kind-codes.js';
import { resolveLinkTargetsSql } from './resolve-link-targets.js';
import { UrlRows } from './url-rows.js';

export interface RebuiltDepths {
  /** URLs whose kind or depth changed. */
  changed: number;
  /** Where the walk started: the roots named, or the pages found to be roots. */
  roots: string[];
}

/** The link graph is walked a level at a time; a chain of redirects in one level is at most this long (the redirect budget's ceiling). */
const MAX_SAME_LEVEL_STEPS = 101;

/**
 * Gives the URLs an import stored (and the URLs its pages link to that no record answered) the kind and
 * depth a crawl of the same pages would have given them. A WARC's records come in the order its writer
 * wrote them, so an image or a stylesheet whose record precedes the page that uses it was taken for a
 * page at depth 0; here the link graph decides, as in a crawl: walked breadth-first from the roots, a URL
 * gets the depth of its shortest path and the kind of the link that first reached it (a page's `<a>` makes
 * a page one level deeper, `<img>`/CSS/script a requisite one level deeper, a redirect or refresh keeps
 * the level, a redirect keeps the kind). Links are read in the archive's order, `<a>` before requisites
 * at one level, so a URL linked both ways is a page, as a crawl that meets the link first would have it.
 *
 * The roots are those given (a crawlite WARC names them in its warcinfo), else the HTML pages of the
 * import that no other page links to, else its first HTML page. URLs the walk does not reach keep what
 * they had; robots.txt and sitemaps keep their kinds.
 */
export function rebuildLinkDepths(db: Database, runIds: readonly number[], rootKeys: string[]): RebuiltDepths {
  // The import's runs: its own, and one per crawl a crawlite WARC of several crawls names.
  const runs = JSON.stringify(runIds);
  return db.transaction((): RebuiltDepths => {
    // Links to URLs whose records came later in the import get their ids, which the walk follows.
    for (const sql of resolveLinkTargetsSql({ where: 'true' })) db.exec(sql);
    db.exec(`DROP TABLE IF EXISTS temp.imported; DROP TABLE IF EXISTS temp.reach;
      CREATE TEMP TABLE imported (id INTEGER PRIMARY KEY);
      CREATE TEMP TABLE reach (id INTEGER PRIMARY KEY, depth INTEGER NOT NULL, kind TEXT NOT NULL);
      CREATE INDEX temp.reach_depth ON reach (depth);`);
    db.prepare(
      `INSERT OR IGNORE INTO temp.imported (id)
      SELECT url_id FROM response WHERE run_id IN (SELECT value FROM json_each(:runs))
      UNION SELECT url_id FROM capture WHERE run_id IN (SELECT value FROM json_each(:runs))
      UNION SELECT id FROM url WHERE state = 'skipped' AND error_code = 'not_in_warc'`,
    ).run({ runs });
    const roots = pickRoots(db, runs, rootKeys);
    const addRoot = db.prepare("INSERT OR IGNORE INTO temp.reach (id, depth, kind) SELECT id, 0, 'page' FROM url WHERE url = ?");
    for (const root of roots) addRoot.run(root);
    // Redirects and refreshes keep the level: followed until nothing new comes at this level.
    const sameLevel = db.prepare(`INSERT OR IGNORE INTO temp.reach (id, depth, kind)
      SELECT t.id, r.depth, CASE l.kind WHEN ${linkKindSql('redirect')} THEN r.kind ELSE 'page' END
      FROM temp.reach r JOIN link l ON l.from_id = r.id JOIN url t ON t.id = l.to_id
      WHERE r.depth = ? AND l.kind IN (${linkKindSql('redirect')}, ${linkKindSql('refresh')})
      ORDER BY r.id, l.kind = ${linkKindSql('refresh')}`);
    const nextLevel = db.prepare(`INSERT OR IGNORE INTO temp.reach (id, depth, kind)
      SELECT t.id, r.depth + 1, CASE l.kind WHEN ${linkKindSql('requisite')} THEN 'requisite' ELSE 'page' END
      FROM temp.reach r JOIN link l ON l.from_id = r.id JOIN url t ON t.id = l.to_id
      WHERE r.depth = ? AND l.kind IN (${linkKindSql('link')}, ${linkKindSql('requisite')})
      ORDER BY l.kind = ${linkKindSql('requisite')}, r.id`);
    // Every level adds at least one URL or ends the walk, so it ends within the number of URLs.
    for (let depth = 0; ; depth++) {
      for (let step = 0; step < MAX_SAME_LEVEL_STEPS && sameLevel.run(depth).changes > 0; step++);
      if (nextLevel.run(depth).changes === 0) break;
    }
    const changed = new UrlRows(db).reachedDepths();
    db.exec('DROP TABLE temp.imported; DROP TABLE temp.reach;');
    return { changed, roots };
  })();
}

const HTML_RESPONSE = `(lower(trim(r.content_type)) LIKE 'text/html%' OR lower(trim(r.content_type)) LIKE 'application/xhtml+xml%')`;

// The URLs other pages link to are gathered once (link has no index on to_id: one would grow every archive),
// not looked for per page, which took the whole link table once per HTML page.
function pickRoots(db: Database, runs: string, rootKeys: string[]): string[] {
  const known = db.prepare('SELECT url FROM url WHERE url = ?').pluck();
  const named = rootKeys.filter((key) => known.get(key) !== undefined);
  if (named.length > 0) return named;
  const unlinked = db
    .prepare(
      `SELECT u.url FROM response r JOIN url u ON u.id = r.url_id
       WHERE r.run_id IN (SELECT value FROM json_each(?)) AND ${HTML_RESPONSE} AND u.kind = 'page'
         AND u.id NOT IN (SELECT to_id FROM link WHERE from_id <> to_id)
       ORDER BY u.id`,
    )
    .pluck()
    .all(runs) as string[];
  if (unlinked.length > 0) return unlinked;
  const first = db
    .prepare(
      `SELECT u.url FROM response r JOIN url u ON u.id = r.url_id WHERE r.run_id IN (SELECT value FROM json_each(?)) AND ${HTML_RESPONSE} ORDER BY u.id LIMIT 1`,
    )
    .pluck()
    .get(runs) as string | undefined;
  return first === undefined ? [] : [first];
}
