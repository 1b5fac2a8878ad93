/** Which links to look at: a condition on the link `l` (e.g. one page's, `l.from_id = ?`), and optionally a gate. */
export interface LinkScope {
  where: string;
  /**
   * A condition on no table that, when false, skips the statements without reading the links (SQLite
   * would otherwise evaluate it against every row of the scan, the table having no index on to_id).
   */
  onlyIf?: string;
}

/**
 * A link whose target had no url row when it was written keeps the target's URL text (to_id 0, see
 * migrations/0017_link_target_ids.sql). Once the target has a row, these statements give the link its id
 * form, the smaller one, and drop the text form: after them a page links to each target once, by id where
 * it can.
 */
export function resolveLinkTargetsSql({ where, onlyIf }: LinkScope): string[] {
  // The gate as the outer loop of a join SQLite may not reorder: an empty gate reads no link.
  const links = onlyIf ? `(SELECT 1 WHERE ${onlyIf}) gate CROSS JOIN main.link l` : 'main.link l';
  return [
    `INSERT INTO main.link (from_id, to_id, to_url, kind, nofollow)
     SELECT l.from_id, u.id, '', l.kind, l.nofollow FROM ${links} JOIN main.url u ON u.url = l.to_url
     WHERE l.to_id = 0 AND ${where}
     ON CONFLICT DO NOTHING`,
    `DELETE FROM main.link WHERE (from_id, to_id, to_url) IN (
       SELECT l.from_id, l.to_id, l.to_url FROM ${links}
       WHERE l.to_id = 0 AND ${where} AND EXISTS (SELECT 1 FROM main.url u WHERE u.url = l.to_url))`,
  ];
}
