import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSha256, tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { expectOneLine } from './support/one-line-error.js';

// More bad input: conflicting options, a truncated archive, a place that cannot be written.
let server: TestServer;
const tmp = tempDir();
let master: string;

/** Mounting a tmpfs needs root on Linux (and a sandbox that allows it): probe once, skip the mount tests if not. */
const canMount = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'crawlite-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

beforeAll(async () => {
  const pages = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`/p${i}`, html(`<p>${'text '.repeat(300)}${i}</p>`)]));
  server = await startServer(
    routes({
      '/': html(
        Object.keys(pages)
          .map((path) => `<a href="${path}">x</a>`)
          .join(''),
      ),
      ...pages,
    }),
  );
  master = tmp.path('master.sqlite');
  expect((await runCli(['crawl', server.url, '--db', master, '-q', '--ignore-robots'])).code).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('conflicting options', () => {
  it('refuses -q with -v', async () => {
    expectOneLine(await execCli(['crawl', server.url, '--db', tmp.path('x.sqlite'), '-q', '-v']), /quiet.*verbose|verbose.*quiet/);
  });

  it('refuses --requisites-any-host with --no-requisites', async () => {
    expectOneLine(
      await execCli(['crawl', server.url, '--db', tmp.path('y.sqlite'), '--no-requisites', '--requisites-any-host']),
      /--requisites-any-host conflicts with --no-requisites/,
    );
  });
});

describe('a truncated archive', () => {
  it('is refused by resume and query, and left as it is', async () => {
    const cut = tmp.path('truncated.sqlite');
    copyFileSync(master, cut);
    truncateSync(cut, Math.floor(statSync(cut).size / 2));
    const before = fileSha256(cut);
    expectOneLine(await execCli(['resume', cut]), /corrupt|malformed/);
    expect(fileSha256(cut)).toBe(before);
    const query = await execCli(['query', cut, 'select count(*) from pages']);
    expectOneLine(query, /corrupt|malformed/);
    expect(fileSha256(cut)).toBe(before);
  });
});

describe.skipIf(!canMount)('a place that cannot be written (a read-only mount)', () => {
  const mountPoint = tmp.path('readonly');

  beforeAll(() => {
    mkdirSync(mountPoint);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint]);
    copyFileSync(master, `${mountPoint}/archive.sqlite`);
    execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
  });

  afterAll(() => {
    execFileSync('umount', [mountPoint]);
  });

  it('refuses a new archive there, with one line', async () => {
    expectOneLine(await execCli(['crawl', server.url, '--db', `${mountPoint}/new.sqlite`]), /cannot open|not writable/);
  });

  it('refuses to resume an archive there, and leaves it as it is', async () => {
    const path = `${mountPoint}/archive.sqlite`;
    const before = fileSha256(path);
    expectOneLine(await execCli(['resume', path]), /not writable|cannot open|read-only|readonly/i);
    expect(fileSha256(path)).toBe(before);
  });

  it('still answers queries there', async () => {
    const result = await execCli([
      'query',
      `${mountPoint}/archive.sqlite`,
      "select count(*) as n from pages where kind = 'page'",
      '-f',
      'json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([{ n: 81 }]);
  });
});
