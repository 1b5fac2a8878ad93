import type { LinkKind } from '../../pipeline/ports.js';

/**
 * The codes `link.kind` stores, as the `link_kind` table names them (migrations/0017_link_target_ids.sql):
 * the two most common kinds are 0 and 1, which a SQLite record holds in no bytes.
 */
export const LINK_KIND_CODE: Readonly<Record<LinkKind, number>> = {
  requisite: 0,
  link: 1,
  redirect: 2,
  refresh: 3,
  canonical: 4,
  sitemap: 5,
};

/** A kind's code as a SQL literal, for statements that read the link table itself. */
export const linkKindSql = (kind: LinkKind): string => String(LINK_KIND_CODE[kind]);
