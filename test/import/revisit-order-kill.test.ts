import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { integrity, readArchive, tempDir } from '../support/archive.js';
import { execCli, spawnCli } from '../support/cli.js';
import { httpResponse, rawRecord } from '../support/raw-warc.js';
import { waitFor } from '../support/wait.js';

// Revisits set aside wait outside the archive (a TEMP table): an import killed with SIGKILL after it set
// them aside and while it imports their originals leaves a whole archive of whole batches, and the same
// import run again resolves every revisit, giving the archive a clean import gives.

const tmp = tempDir();
const SITE = 'http://site.example';
const PAGES = 3000;
const body = (i: number) => `<!doctype html><title>page ${i}</title><p>${'text '.repeat(40)}<a href="/p${(i + 1) % PAGES}">next</a></p>`;
const id = (i: number) => `<urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}>`;

const newer = tmp.path('newer.warc');
const older = tmp.path('older.warc');

beforeAll(() => {
  const revisits: Buffer[] = [];
  const originals: Buffer[] = [];
  for (let i = 0; i < PAGES; i++) {
    originals.push(
      rawRecord('response', `${SITE}/p${i}`, '2024-01-01T00:00:00Z', httpResponse('text/html', body(i)), { 'WARC-Record-ID': id(i) }),
    );
    revisits.push(
      rawRecord('revisit', `${SITE}/p${i}`, '2025-01-01T00:00:00Z', 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n', {
        'WARC-Refers-To': id(i),
      }),
    );
  }
  writeFileSync(newer, Buffer.concat(revisits));
  writeFileSync(older, Buffer.concat(originals));
});

afterAll(() => tmp.cleanup());

const CAPTURES = 'SELECT url, fetched_at, sha256, latest FROM captures ORDER BY url, fetched_at';

it('a kill -9 while revisits wait leaves a whole archive, and the import run again resolves them all', async () => {
  const clean = tmp.path('clean.sqlite');
  const run = await execCli(['import', newer, older, '--db', clean, '-q']);
  expect(run.code, run.stderr).toBe(0);
  expect(readArchive(clean, 'SELECT count(*) AS n FROM captures')).toEqual([{ n: 2 * PAGES }]);

  const db = tmp.path('killed.sqlite');
  const child = spawnCli(['import', newer, older, '--db', db]);
  // A progress line is told after a batch is committed: one in the second file, with the revisits set aside.
  await waitFor('a progress line in the second file', () => child.output().stderr.includes('(file 2)') || child.exitCode !== null, 60_000);
  expect(child.exitCode, 'the import ended before it could be killed').toBeNull();
  child.kill('SIGKILL');
  await child.exited;
  expect(integrity(db)).toBe('ok');
  const kept = readArchive<{ n: number }>(db, 'SELECT count(*) AS n FROM captures')[0]!.n;
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(2 * PAGES);

  const again = await execCli(['import', newer, older, '--db', db, '-q']);
  expect(again.code, again.stderr).toBe(0);
  expect(readArchive(db, CAPTURES)).toEqual(readArchive(clean, CAPTURES));
});
