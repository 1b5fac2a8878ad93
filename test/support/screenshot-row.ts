import Database from 'better-sqlite3';

/**
 * Stores a screenshot of `url`'s latest capture (the `pages` row: its URL key and fetched_at) in an archive a
 * crawl made, as a browser crawl would, by SQL: for readers' tests, whatever writes it in a crawl.
 * `type` is stored as given, so a test can store one no image should be served as. Returns the capture's fetched_at.
 */
export function addScreenshot(path: string, url: string, data: Buffer, type = 'image/png'): string {
  const db = new Database(path, { fileMustExist: true });
  try {
    const row = db
      .prepare<[string], { id: number; fetched_at: string }>(
        'SELECT u.id, r.fetched_at FROM url u JOIN response r ON r.url_id = u.id WHERE u.url = ?',
      )
      .get(url);
    if (!row) throw new Error(`no capture of ${url} in ${path}`);
    db.prepare('INSERT INTO screenshot (url_id, fetched_at, type, data) VALUES (?, ?, ?, ?)').run(row.id, row.fetched_at, type, data);
    return row.fetched_at;
  } finally {
    db.close();
  }
}
