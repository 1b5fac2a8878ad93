import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// npm 12 runs a package's install script only when package.json's allowScripts names it: every
// package of the lock file that has one (better-sqlite3's native build, esbuild's binary) must be named,
// or a fresh `npm install` leaves it unbuilt.
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};

describe('allowScripts', () => {
  const scripted = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));

  it('names every locked package with an install script', () => {
    expect(scripted).toContain('better-sqlite3');
    for (const name of scripted) expect(pkg.allowScripts?.[name], name).toBe(true);
  });
});
