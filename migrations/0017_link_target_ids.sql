-- A link names its target by the target's url row, not by spelling its URL out again (the URL text was
-- most of the table's bytes). Almost every target has a url row (a link out of scope is kept as
-- `skipped`); those that do not (a canonical or refresh target, a redirect the caller follows, an
-- imported link to a URL no record answered) keep their text:
--   to_id = url.id, to_url = ''           the target has a url row
--   to_id = 0,      to_url = the URL      it has none
-- A link's kind is a code of `link_kind` (requisite 0, link 1: the two most common take no bytes either).
-- A 0, a 1 and an empty string take no bytes in a SQLite record, so most rows hold two small integers. A target that gains a url row later may keep its text until the writer
-- resolves it (after an import or a merge); either way the `links` view, the contract, reads the same.
DROP VIEW links;
ALTER TABLE link RENAME TO link_0016;

CREATE TABLE link_kind (
  code INTEGER PRIMARY KEY,
  kind TEXT NOT NULL UNIQUE
) STRICT;
INSERT INTO link_kind (code, kind) VALUES
  (0, 'requisite'), (1, 'link'), (2, 'redirect'), (3, 'refresh'), (4, 'canonical'), (5, 'sitemap');
-- Whatever else an older archive holds keeps its name, under a code of its own.
INSERT OR IGNORE INTO link_kind (kind) SELECT DISTINCT kind FROM link_0016;

CREATE TABLE link (
  from_id  INTEGER NOT NULL REFERENCES url (id),
  to_id    INTEGER NOT NULL,
  to_url   TEXT NOT NULL,
  kind     INTEGER NOT NULL REFERENCES link_kind (code),
  nofollow INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (from_id, to_id, to_url)
) STRICT, WITHOUT ROWID;

INSERT INTO link (from_id, to_id, to_url, kind, nofollow)
SELECT l.from_id, coalesce(u.id, 0), CASE WHEN u.id IS NULL THEN l.to_url ELSE '' END, k.code, l.nofollow
FROM link_0016 l JOIN link_kind k ON k.kind = l.kind LEFT JOIN url u ON u.url = l.to_url;

DROP TABLE link_0016;

CREATE VIEW links AS
SELECT f.url AS from_url, CASE l.to_id WHEN 0 THEN l.to_url ELSE t.url END AS to_url, k.kind, l.nofollow
FROM link l
JOIN url f ON f.id = l.from_id
JOIN link_kind k ON k.code = l.kind
LEFT JOIN url t ON t.id = l.to_id;
