import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';
import { BIN } from '../support/cli.js';
import { expectOneLine } from '../support/one-line-error.js';

// An install whose better-sqlite3 was never built, as `npm ci` leaves it when npm 12 blocks its install
// script: the built command and every other package as they are, better-sqlite3 without build/.
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const place = tempDir();
const root = place.path('install');
mkdirSync(join(root, 'node_modules'), { recursive: true });
cpSync(dirname(BIN), join(root, 'dist', 'bundle'), { recursive: true });
symlinkSync(join(REPO, 'migrations'), join(root, 'migrations'));
cpSync(join(REPO, 'package.json'), join(root, 'package.json'));
for (const name of readdirSync(join(REPO, 'node_modules'))) {
  if (name !== 'better-sqlite3' && !name.startsWith('.')) symlinkSync(join(REPO, 'node_modules', name), join(root, 'node_modules', name));
}
cpSync(join(REPO, 'node_modules', 'better-sqlite3'), join(root, 'node_modules', 'better-sqlite3'), {
  recursive: true,
  filter: (source) => !source.split(/[\\/]/).includes('build'),
});
afterAll(() => place.cleanup());

function run(args: string[]) {
  const result = spawnSync(process.execPath, [join(root, 'dist', 'bundle', 'crawlite.js'), ...args], {
    cwd: place.dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

describe('a SQLite driver that was never built', () => {
  it('is named, with how to build it, when a crawl starts (not blamed on the lock file)', () => {
    const result = run(['demo', '--db', place.path('demo.sqlite')]);
    expectOneLine(result, /SQLite driver \(better-sqlite3\) cannot load: its native part was never built/);
    expect(result.stderr).toMatch(/allowScripts/);
    expect(result.stderr).toMatch(/npm rebuild better-sqlite3/);
    expect(result.stderr).not.toMatch(/lock file/);
  });

  it('is named when an archive is only read', () => {
    const result = run(['query', place.path('none.sqlite'), 'SELECT 1']);
    expectOneLine(result, /SQLite driver \(better-sqlite3\) cannot load/);
  });
});
