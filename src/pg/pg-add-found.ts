import type pg from 'pg';
import { revise, revisionSql, UPGRADABLE_SKIPS, type Find, type KnownUrl, type RuleColumns } from '../pipeline/frontier-rules.js';
import type { DiscoveredUrl, PageOutcome, Reason, UrlKind, UrlState } from '../pipeline/ports.js';
import { judgeQueryVariants } from './pg-query-variants.js';

export interface FoundLimits {
  /** The crawl's --max-per-path; 0 or absent for no cap. */
  maxPerPath?: number;
  /** The crawl's --max-depth, so a page fetched at the limit and found closer is fetched again. */
  maxDepth?: number;
}

export interface FoundAdded {
  /** URLs new to the frontier, per page that found them first. */
  added: Map<PageOutcome, number>;
  /** Keys the crawl-wide --max-per-path leaves out, with why: the shard records them so. */
  overCap: Map<string, Reason>;
}

/** One URL found by the pages of a commit: the first finder's entry, at the least depth any of them found it. */
interface Found {
  entry: DiscoveredUrl;
  depth: number;
  skip: Reason | undefined;
  /** Every find of it, in the order the pages were committed: what each changed is counted for its page. */
  finds: { finder: PageOutcome; depth: number; code: string | null }[];
}

function collect(outcomes: PageOutcome[]): Found[] {
  const byKey = new Map<string, Found>();
  for (const outcome of outcomes) {
    for (const entry of outcome.discovered) {
      if (entry.known || entry.linkOnly) continue;
      const seen = byKey.get(entry.key);
      const find = { finder: outcome, depth: entry.depth, code: entry.skip?.code ?? null };
      if (!seen) {
        byKey.set(entry.key, { entry, depth: entry.depth, skip: entry.skip, finds: [find] });
        continue;
      }
      seen.finds.push(find);
      seen.depth = Math.min(seen.depth, entry.depth);
      if (seen.skip && !entry.skip && UPGRADABLE_SKIPS.includes(seen.skip.code)) seen.skip = undefined;
    }
  }
  return [...byKey.values()].sort((a, b) => (a.entry.key < b.entry.key ? -1 : a.entry.key > b.entry.key ? 1 : 0));
}

/**
 * Adds what the pages found: new URLs queued (or skipped, --max-per-path
 * judged over all workers); a URL known already is revised by the
 * frontier's rules (src/pipeline/frontier-rules.ts). New rows are added in key order, and known rows to change are
 * locked in id order (as claims' renewals lock them), so concurrent commits
 * wait on each other rather than deadlock (and a deadlock is retried).
 */
export async function addFound(client: pg.PoolClient, outcomes: PageOutcome[], limits: FoundLimits): Promise<FoundAdded> {
  const found = collect(outcomes);
  const added = new Map<PageOutcome, number>();
  if (found.length === 0) return { added, overCap: new Map() };
  const variants = found.flatMap(({ entry, skip }) =>
    entry.pathKey ? [{ key: entry.key, pathKey: entry.pathKey, skipped: skip !== undefined }] : [],
  );
  const overCap = await judgeQueryVariants(client, variants, limits.maxPerPath ?? 0);
  const skipOf = (row: Found) => row.skip ?? overCap.get(row.entry.key);

  const { rows } = await client.query<{ url: string }>({
    name: 'crawlite-add-found',
    text: `INSERT INTO url (url, fetch_url, origin, kind, state, depth, redirect_hops, error_code, error)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::integer[], $8::text[], $9::text[])
           ON CONFLICT (url) DO NOTHING
           RETURNING url`,
    values: [
      found.map(({ entry }) => entry.key),
      found.map(({ entry }) => (entry.url === entry.key ? null : entry.url)),
      found.map(({ entry }) => entry.origin),
      found.map(({ entry }) => entry.target),
      found.map((row) => (skipOf(row) ? 'skipped' : 'queued')),
      found.map((row) => row.depth),
      found.map(({ entry }) => entry.redirectHops),
      found.map((row) => skipOf(row)?.code ?? null),
      found.map((row) => skipOf(row)?.message ?? null),
    ],
  });
  const inserted = new Set(rows.map((row) => row.url));
  const before = await reviseKnown(
    client,
    found.filter((row) => !inserted.has(row.entry.key)),
    skipOf,
    limits.maxDepth,
  );
  for (const row of found) {
    const was = before.get(row.entry.key);
    if (inserted.has(row.entry.key) || was) countFinds(row, was, overCap.get(row.entry.key), limits.maxDepth, added);
  }
  return { added, overCap };
}

/**
 * newUrls, per page: a find counts for its page when it added the URL, or
 * changed it as the rules say (queued it again, moved it closer), judged
 * in the order the pages were committed, from the row as it was before the
 * commit (`was`; undefined for a URL the commit inserted).
 */
function countFinds(
  row: Found,
  was: KnownUrl | undefined,
  overCap: Reason | undefined,
  maxDepth: number | undefined,
  added: Map<PageOutcome, number>,
): void {
  let current = was;
  for (const { finder, depth, code } of row.finds) {
    const skip = code ?? overCap?.code ?? null;
    const find: Find = { depth, queueable: skip === null };
    const next: KnownUrl | undefined = current
      ? revise(current, find, maxDepth)
      : { state: skip ? 'skipped' : 'queued', kind: row.entry.target, depth, code: skip };
    if (!next) continue;
    current = next;
    added.set(finder, (added.get(finder) ?? 0) + 1);
  }
}

/** The frontier's rules over the URL row `u` and the finds in `at` (one crawl: no revisit); $4 is --max-depth. */
const found = (at: string): RuleColumns => ({
  dialect: 'postgres',
  row: 'u.',
  depth: `${at}.depth`,
  queueable: `${at}.queueable`,
  maxDepth: '$4',
});

interface WasRow {
  url: string;
  state: string;
  kind: UrlKind;
  depth: number;
  code: string | null;
}

/** Only the rows that change are locked: a link to a page every page links to does not make commits wait on each other. */
async function reviseKnown(
  client: pg.PoolClient,
  known: Found[],
  skipOf: (row: Found) => Reason | undefined,
  maxDepth: number | undefined,
): Promise<Map<string, KnownUrl>> {
  if (known.length === 0) return new Map();
  // The UPDATE judges the row as locked (a commit may have changed it since the statement began); t has it as it was.
  const { rows } = await client.query<WasRow>({
    name: 'crawlite-revise-known',
    text: `WITH f AS (SELECT * FROM unnest($1::text[], $2::integer[], $3::boolean[]) AS f(url, depth, queueable)),
     t AS (
       SELECT u.id, f.depth, f.queueable, u.state AS was_state, u.kind AS was_kind, u.depth AS was_depth, u.error_code AS was_code FROM url u JOIN f ON u.url = f.url
       WHERE ${revisionSql(found('f')).changes}
       ORDER BY u.id FOR UPDATE OF u)
     UPDATE url u SET
       ${revisionSql(found('t')).assignments}
     FROM t WHERE u.id = t.id
     RETURNING u.url, t.was_state AS state, t.was_kind AS kind, t.was_depth AS depth, t.was_code AS code`,
    values: [known.map((row) => row.entry.key), known.map((row) => row.depth), known.map((row) => !skipOf(row)), maxDepth ?? null],
  });
  // A leased row is in flight: to the rules, as a fetching one.
  return new Map(rows.map(({ url, state, ...rest }) => [url, { ...rest, state: (state === 'leased' ? 'fetching' : state) as UrlState }]));
}
