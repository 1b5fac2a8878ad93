import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { codeBlocks, docPages } from './support/markdown.js';
import { shellCommands } from './support/shell-words.js';
import { html, routes, startServer, text, type TestServer } from './support/test-server.js';

// The README's and the manual's examples work as written: every crawlite command line in a ```sh block
// is accepted by the CLI's own parser, and every query of docs/archive.md runs on a crawled archive.
// `query` runs the built CLI (dist/bundle/crawlite.js) as a real process: build with `npm run build` first.

interface Example {
  page: string;
  line: string;
  argv: string[];
}

/** The crawlite commands of every ```sh block, as argv after `crawlite` (or `npx crawlite`). */
function commandExamples(): Example[] {
  const examples: Example[] = [];
  for (const { path, text: page } of docPages()) {
    for (const block of codeBlocks(page, 'sh')) {
      for (const line of block.split('\n')) {
        for (const words of shellCommands(line)) {
          const start = words[0] === 'crawlite' ? 1 : words[0] === 'npx' && words[1] === 'crawlite' ? 2 : -1;
          if (start > 0) examples.push({ page: path, line: line.trim(), argv: words.slice(start) });
        }
      }
    }
  }
  return examples;
}

/** The statements of docs/archive.md's ```sql blocks, without the comment line that says what each is for. */
function archiveQueries(): string[] {
  const page = docPages().find((doc) => doc.path === 'docs/archive.md')!;
  return codeBlocks(page.text, 'sql')
    .flatMap((block) => block.split(/;\n/))
    .map((statement) =>
      statement
        .split('\n')
        .filter((line) => !line.trim().startsWith('--'))
        .join('\n')
        .trim(),
    )
    .filter(Boolean);
}

describe('the shell-words splitter the examples are read with', () => {
  it('keeps quoted words whole and stops at comments, pipes and redirections', () => {
    expect(shellCommands(`npx crawlite crawl https://a.example --header 'Authorization: Bearer T' -c 4   # comment`)).toEqual([
      ['npx', 'crawlite', 'crawl', 'https://a.example', '--header', 'Authorization: Bearer T', '-c', '4'],
    ]);
    expect(shellCommands(`crawlite query a.sqlite "select \\"x\\" from t where a = 'b|c'" -f csv > out.csv 2>&1 | head`)).toEqual([
      ['crawlite', 'query', 'a.sqlite', `select "x" from t where a = 'b|c'`, '-f', 'csv'],
      ['head'],
    ]);
    expect(shellCommands('npm install && npx crawlite demo')).toEqual([
      ['npm', 'install'],
      ['npx', 'crawlite', 'demo'],
    ]);
    expect(() => shellCommands(`crawlite search a.sqlite 'open`)).toThrow(/unclosed/);
  });
});

describe('the command lines of the README and docs/', () => {
  const examples = commandExamples();

  it('are found on the README and on every page that shows commands', () => {
    const pages = new Set(examples.map((example) => example.page));
    for (const page of [
      'README.md',
      'docs/commands.md',
      'docs/search.md',
      'docs/serve.md',
      'docs/warc.md',
      'docs/recrawl.md',
      'docs/scaling-out.md',
      'docs/browser.md',
    ]) {
      expect(pages, page).toContain(page);
    }
    expect(examples.length).toBeGreaterThan(60);
  });

  for (const example of examples) {
    it(`parses: ${example.page}: ${example.line}`, async () => {
      const run = await runCli(example.argv, { parseOnly: true });
      expect(run, `${example.page}: ${example.line}`).toEqual({ code: 0, stdout: '', stderr: '' });
    });
  }
});

describe('the queries of docs/archive.md', () => {
  const tmp = tempDir();
  const db = tmp.path('site.sqlite');
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(
      routes({
        '/robots.txt': text('User-agent: *\nDisallow: /private/\n'),
        '/': html(
          '<img src="/logo.png"><a href="/about">about</a> <a href="/old">old</a> <a href="/missing">missing</a> <a href="/private/x">private</a>',
          'home',
        ),
        '/about': html('<p>We sell apples.</p>', 'about'),
        '/old': { status: 301, headers: { location: '/about' } },
        '/logo.png': { headers: { 'content-type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
      }),
    );
    const crawled = await runCli(['crawl', server.url, '--db', db, '-q']);
    expect(crawled.stderr).toBe('');
    // A second crawl, so `captures` and `changes` compare two.
    const again = await runCli(['recrawl', db, '-q']);
    expect(again.stderr).toBe('');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    tmp.cleanup();
  });

  const queries = archiveQueries();

  it('are found', () => {
    expect(queries.length).toBeGreaterThanOrEqual(10);
  });

  for (const sql of queries) {
    it(`runs: ${sql}`, async () => {
      // The examples name https://example.com/; here the crawled site stands for it.
      const run = await execCli(['query', db, sql.replaceAll('https://example.com/', server.url), '-f', 'json']);
      expect(run.stderr, sql).toBe('');
      expect(run.code, sql).toBe(0);
      expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
    }, 30_000);
  }
});
