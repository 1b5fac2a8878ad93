import { existsSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../src/storage/archive/open-archive.js';
import { connectionOf, openCrawlArchive } from '../../src/storage/archive/open-crawl-archive.js';
import { WalCheckpointer } from '../../src/storage/archive/wal-checkpointer.js';
import { tempDir, testOwner } from '../support/archive.js';
import { sleep, waitFor } from '../support/wait.js';

// The writer never checkpoints inside a commit (a stall for every request slot): a thread of its own copies the WAL back.

const tmp = tempDir();
/** 2 MB: about 500 WAL pages, below SQLite's automatic checkpoint (1000), so only the checkpointer moves them. */
const BLOB = Buffer.alloc(2 * 1024 * 1024, 7);

afterAll(() => tmp.cleanup());

describe('the WAL checkpointer of a crawl archive', () => {
  it('copies committed pages into the archive while the crawl runs, and leaves one file on close', async () => {
    const path = tmp.path('checkpointed.sqlite');
    const archive = await openCrawlArchive(path, 'create', testOwner);
    try {
      const before = statSync(path).size;
      connectionOf(archive).prepare("INSERT INTO meta (key, value) VALUES ('filler', ?)").run(BLOB.toString('latin1'));
      await waitFor(
        'the archive file to take in the committed pages',
        () => statSync(path).size >= before + BLOB.length,
        5_000,
        () => `size ${statSync(path).size}`,
      );
      expect(connectionOf(archive).pragma('wal_autocheckpoint', { simple: true })).toBeGreaterThan(1000);
    } finally {
      archive.close();
    }
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('closes at once when nothing was written', async () => {
    const path = tmp.path('idle.sqlite');
    const archive = await openCrawlArchive(path, 'create', testOwner);
    const started = Date.now();
    archive.close();
    archive.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('starts its thread when the first checkpoint is due, not with the archive, and not at all if stopped before', async () => {
    const db = openArchive(tmp.path('lazy.sqlite'), 'create');
    try {
      const checkpointer = WalCheckpointer.start(db, tmp.path('lazy.sqlite'));
      expect(checkpointer.running).toBe(false);
      await waitFor('the checkpointer thread to start', () => checkpointer.running, 10_000);
      checkpointer.stop();
      expect(checkpointer.running).toBe(false);

      const early = WalCheckpointer.start(db, tmp.path('lazy.sqlite'));
      early.stop();
      // Past the moment its first checkpoint was due: still no thread.
      await sleep(1_000);
      expect(early.running).toBe(false);
    } finally {
      db.close();
    }
  });
});
