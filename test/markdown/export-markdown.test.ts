import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/archive.js';
import { html, routes, startServer, type TestServer } from '../support/test-server.js';

// `export --markdown DIR`: a .md per page with front matter, llms.txt and llms-full.txt, nothing outside DIR.

const tmp = tempDir();
let server: TestServer;
let db: string;

const PROSE = '<p>Kettles boil water for tea, and the best of them let you choose the temperature of the water exactly.</p>';
// Paths that try to climb out of the export directory, or to be hidden, absolute or huge.
const HOSTILE = [
  '/%2e%2e/%2e%2e/escaped',
  '/..%2f..%2fetc%2fpasswd',
  '/a/%2E%2E%5C%2E%2E%5Cwin',
  `/${'x'.repeat(400)}`,
  '/.hidden',
  '/same?q=1',
  '/same?q=2',
];

beforeAll(async () => {
  const pages: Record<string, ReturnType<typeof html>> = {
    '/robots.txt': { status: 404 } as never,
    '/': html(
      `<nav><a href="/docs/kettles.html">kettles</a> ${HOSTILE.map((p) => `<a href="${p}">x</a>`).join(' ')}</nav>${PROSE}`,
      'Home',
    ),
    '/docs/kettles.html': html(
      `<main><h1>Kettles</h1>${PROSE}<h2>Kinds</h2><ul><li>Electric</li><li>Stove-top</li></ul></main>`,
      'Kettles: "a guide"',
    ),
  };
  // The crawler normalises /%2e%2e/%2e%2e/escaped to /escaped: still a page of its own.
  for (const path of [...HOSTILE, '/escaped']) pages[path] = html(`<main>${PROSE}<p>page ${path}</p></main>`, `Hostile ${path.length}`);
  server = await startServer(routes(pages));
  db = tmp.path('site.sqlite');
  expect((await runCli(['crawl', server.url, '--db', db, '-q'])).code).toBe(0);
});

afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

describe('export --markdown', () => {
  it('writes one .md per page with front matter, llms.txt and llms-full.txt', async () => {
    const dir = tmp.path('md');
    const run = await runCli(['export', db, '--markdown', dir]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const host = new URL(server.url).host.replace(':', '_');
    const kettles = readFileSync(join(dir, host, 'docs', 'kettles.md'), 'utf8');
    expect(kettles).toMatch(
      /^---\nurl: "http:\/\/127\.0\.0\.1:\d+\/docs\/kettles\.html"\ntitle: "Kettles: \\"a guide\\""\nfetched_at: "[^"]+"\ncrawl: 1\n---\n/,
    );
    expect(kettles).toMatch(/^## Kinds$/m);
    expect(kettles).toMatch(/^- +Electric$/m);
    expect(readFileSync(join(dir, host, 'index.md'), 'utf8')).toContain('Kettles boil water');

    const llms = readFileSync(join(dir, 'llms.txt'), 'utf8');
    expect(llms).toMatch(/^# .+\n\n> .+\n\n## Pages\n\n- \[/);
    expect(llms).toContain(`- [Kettles: "a guide"](${host}/docs/kettles.md): Kettles boil water for tea`);
    const full = readFileSync(join(dir, 'llms-full.txt'), 'utf8');
    expect(full).toContain('# Kettles: "a guide"');
    expect(full.match(/Kettles boil water/g)!.length).toBe(filesUnder(dir).filter((f) => f.endsWith('.md')).length);
  });

  it('hostile URLs cannot write outside DIR, names stay bounded, and collisions get their own file', async () => {
    const dir = tmp.path('md-hostile');
    expect((await runCli(['export', db, '--markdown', dir])).code).toBe(0);
    const files = filesUnder(dir);
    for (const file of files) {
      expect(resolve(dir, file).startsWith(resolve(dir) + '/')).toBe(true);
      for (const part of file.split('/')) {
        expect(part.startsWith('.')).toBe(false);
        expect(part.length).toBeLessThanOrEqual(90);
      }
    }
    expect(existsSync(tmp.path('escaped.md'))).toBe(false);
    expect(readdirSync(tmp.path('.')).filter((name) => name.endsWith('.md'))).toEqual([]);
    // Every page written, one file each: 2 + the hostile ones (the two /same?q= pages apart).
    expect(files.filter((f) => f.endsWith('.md'))).toHaveLength(2 + HOSTILE.length);
  });

  it('refuses a directory that is not empty without --force, in one line', async () => {
    const dir = tmp.path('md-full');
    mkdirSync(dir);
    writeFileSync(join(dir, 'keep.txt'), 'mine');
    const refused = await runCli(['export', db, '--markdown', dir]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/is not empty; pass --force/);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect((await runCli(['export', db, '--markdown', dir, '--force'])).code).toBe(0);
    expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('mine');
  });
});
