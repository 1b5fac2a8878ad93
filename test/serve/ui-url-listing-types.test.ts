import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/storage/archive/migrate.js';
import { mediaType, mediaTypeCounts } from '../../src/storage/reader/media-types.js';
import { tempDir } from '../support/archive.js';

// The URL list's type select counts the archive's media types: once per state of the archive,
// and again as soon as another connection (a crawl still running) stores more.

const tmp = tempDir();

afterAll(() => tmp.cleanup());

describe('the media types a list offers', () => {
  it('reads a Content-Type as its media type: parameters, case and space ignored, (none) when empty', () => {
    expect(mediaType('Text/HTML ; charset=utf-8')).toBe('text/html');
    expect(mediaType(' image/png')).toBe('image/png');
    expect(mediaType('; charset=x')).toBe('(none)');
    expect(mediaType(null)).toBe('(none)');
  });

  it('counts by media type, most first, and counts again once another connection has written', () => {
    const path = tmp.path('types.sqlite');
    const writer = new Database(path);
    migrate(writer, loadMigrations());
    writer.pragma('journal_mode = WAL');
    writer.exec(`INSERT INTO run (id, started_at, options) VALUES (1, '2026-01-01T00:00:00.000Z', '{}');
      INSERT INTO body (id, hash, size, data) VALUES (1, x'00', 2, x'6869');`);
    let id = 0;
    const store = (contentType: string | null) => {
      id += 1;
      writer
        .prepare("INSERT INTO url (id, url, origin, state, depth, redirect_hops) VALUES (?, ?, 'https://a.example', 'done', 0, 0)")
        .run(id, `https://a.example/${id}`);
      writer
        .prepare(
          "INSERT INTO response (url_id, run_id, status, content_type, headers, body_id, fetched_at, elapsed_ms, links_found, links_new) VALUES (?, 1, 200, ?, '{}', 1, '2026-01-01T00:00:01.000Z', 1, 0, 0)",
        )
        .run(id, contentType);
    };
    for (const type of ['text/html; charset=utf-8', 'TEXT/HTML', 'image/png', null, '']) store(type);
    const reader = new Database(path, { readonly: true });
    try {
      const first = mediaTypeCounts(reader);
      expect(first).toEqual([
        { type: '(none)', count: 2 },
        { type: 'text/html', count: 2 },
        { type: 'image/png', count: 1 },
      ]);
      // Nothing written since: the same counts, not counted again.
      expect(mediaTypeCounts(reader)).toBe(first);
      store('image/png');
      store('image/png');
      store('application/pdf');
      expect(mediaTypeCounts(reader)).toEqual([
        { type: 'image/png', count: 3 },
        { type: '(none)', count: 2 },
        { type: 'text/html', count: 2 },
        { type: 'application/pdf', count: 1 },
      ]);
      expect(mediaTypeCounts(reader, 2)).toEqual([
        { type: 'image/png', count: 3 },
        { type: '(none)', count: 2 },
      ]);
    } finally {
      reader.close();
      writer.close();
    }
  });
});
