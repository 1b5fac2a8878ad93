-- What an imported record said of a capture that its columns cannot. One row per note, keyed like the
-- capture it belongs to (its URL and fetched_at), as a screenshot is:
--   not-encoded     the record's body is not encoded as its Content-Encoding says (a recorder stored it
--                   already decoded, or it is no such coding): kept as stored, as warcio and pywb read it
--   partly-decoded  the body's decoding failed part-way: the part decoded is kept
--   resource        a resource record, which holds no HTTP message: the status (200) is not recorded,
--                   Content-Type is the record's own
-- A capture read as recorded has no row.
CREATE TABLE capture_note (
  url_id INTEGER NOT NULL REFERENCES url (id),
  fetched_at TEXT NOT NULL,
  note TEXT NOT NULL,
  PRIMARY KEY (url_id, fetched_at, note)
) STRICT, WITHOUT ROWID;

CREATE VIEW capture_notes AS
SELECT u.url, n.fetched_at, n.note
FROM capture_note n
JOIN url u ON u.id = n.url_id;
