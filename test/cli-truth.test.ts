import { existsSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDbPath } from '../src/cli/commands/crawl.js';
import { NUMERIC_FLAGS } from '../src/cli/crawl-flags.js';
import { main } from '../src/cli/main.js';
import { resolveRoots } from '../src/run/resolve-roots.js';
import { readArchive, tempDir } from './support/archive.js';
import { execCli, runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';
import { expectOneLine } from './support/one-line-error.js';

// What the command line says must be true: exit codes, refusals, archive names, help.
let server: TestServer;
let other: TestServer;
/** A port nothing listens on: a server was started there and closed. */
let deadPort: number;
const tmp = tempDir();

beforeAll(async () => {
  const pages = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`/p${i}`, html(`<p>page ${i}</p>`, `page ${i}`)]));
  server = await startServer(
    routes(
      {
        '/': html(
          Object.keys(pages)
            .map((path) => `<a href="${path}">x</a>`)
            .join(''),
        ),
        ...pages,
      },
      5,
    ),
  );
  other = await startServer(routes({ '/': html('<a href="/only-here">x</a>'), '/only-here': html('here') }));
  const dead = await startServer(routes({}));
  deadPort = dead.port;
  await dead.close();
});

afterAll(async () => {
  await server?.close();
  await other?.close();
  tmp.cleanup();
});

describe('a crawl in which no root could be fetched', () => {
  it('fails with exit 1 and one line per root saying why (robots.txt unreachable)', async () => {
    const db = tmp.path('dead-robots.sqlite');
    const root = `http://127.0.0.1:${deadPort}/`;
    const result = await runCli(['crawl', root, '--db', db, '--max-tries', '1']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^crawlite: no root could be fetched: ${root}: \\w+: .*ECONNREFUSED`, 'm'));
  });

  it('fails with exit 1 without robots.txt too, naming every root; one root fetched, now or before, is enough', async () => {
    const roots = [`http://127.0.0.1:${deadPort}/`, `http://127.0.0.1:${deadPort}/other`];
    const dead = await runCli(['crawl', ...roots, '--db', tmp.path('dead-roots.sqlite'), '--max-tries', '1', '--ignore-robots', '-q']);
    expect(dead.code, dead.stderr).toBe(1);
    const lines = dead.stderr.trimEnd().split('\n');
    expect(lines).toEqual(
      roots.map((root) => expect.stringMatching(new RegExp(`^crawlite: no root could be fetched: ${root}: failed: .*ECONNREFUSED`))),
    );

    const mixed = await runCli(['crawl', roots[0]!, server.url, '--db', tmp.path('one-alive.sqlite'), '--max-tries', '1', '-q']);
    expect(mixed.code, mixed.stderr).toBe(0);
    expect(mixed.stderr).toMatch(
      new RegExp(`^crawlite: warning: root did not answer with a page: ${roots[0]}: \\w+: .*ECONNREFUSED.*\\n$`),
    );

    const earlier = tmp.path('earlier.sqlite');
    expect((await runCli(['crawl', server.url, '--db', earlier, '-q', '--max-pages', '3'])).code).toBe(0);
    const resumed = await runCli(['resume', earlier, '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toBe('');
  });
});

describe('roots that cannot be what the user meant', () => {
  it('are refused before anything is created or asked of DNS; localhost, IP addresses, dotted names and a dotless host with its scheme are not', async () => {
    for (const [root, phrase] of [
      ['example', /root "example" has no dot in its host name "example"/],
      ['http//example.com', /root "http\/\/example.com" is missing the "\:\/\/" after http/],
      ['https//example.com/docs', /is missing the "\:\/\/" after https/],
      ['http:/example.com', /is missing the "\:\/\/" after http/],
    ] as const) {
      const dir = tempDir();
      try {
        expectOneLine(await execCli(['crawl', root], { cwd: dir.dir }), phrase);
        expect(readdirSync(dir.dir), root).toEqual([]);
      } finally {
        dir.cleanup();
      }
    }

    const roots = [
      'localhost',
      'localhost:8080/docs',
      '127.0.0.1',
      '10.1.2.3:81',
      '[::1]:8080',
      'example.com',
      'http://intranet/',
      'https://wiki/x',
    ];
    expect(resolveRoots(roots).map((root) => root.url)).toEqual([
      'http://localhost/',
      'http://localhost:8080/docs',
      'http://127.0.0.1/',
      'http://10.1.2.3:81/',
      'http://[::1]:8080/',
      'http://example.com/',
      'http://intranet/',
      'https://wiki/x',
    ]);
  });
});

describe('the default archive name', () => {
  it('includes a port other than the default', () => {
    expect(defaultDbPath('http://127.0.0.1:18700/')).toBe('127.0.0.1_18700.sqlite');
    expect(defaultDbPath('http://127.0.0.1:18702/x')).toBe('127.0.0.1_18702.sqlite');
    expect(defaultDbPath('http://example.com/')).toBe('example.com.sqlite');
    expect(defaultDbPath('https://example.com:443/')).toBe('example.com.sqlite');
    expect(defaultDbPath('http://[::1]:8080/')).toBe('ipv6---1_8080.sqlite');
  });

  it('keeps two sites on one host apart', async () => {
    const dir = tempDir();
    try {
      for (const site of [server, other]) {
        const result = await execCli(['crawl', site.url, '-q'], { cwd: dir.dir });
        expect(result.code, result.stderr).toBe(0);
      }
      const names = [server, other].map((site) => `127.0.0.1_${site.port}.sqlite`);
      expect(readdirSync(dir.dir).sort()).toEqual([...names].sort());
      const urls = (name: string) =>
        readArchive<{ url: string }>(dir.path(name), "SELECT url FROM pages WHERE kind = 'page'").map((row) => new URL(row.url).port);
      expect(new Set(urls(names[0]!))).toEqual(new Set([String(server.port)]));
      expect(new Set(urls(names[1]!))).toEqual(new Set([String(other.port)]));
    } finally {
      dir.cleanup();
    }
  });
});

describe('usage errors', () => {
  it('are one line, even those yargs spreads over several', async () => {
    const result = await runCli(['query', 'x.sqlite', 'select 1', '--format', 'xml']);
    expectOneLine(result, /^crawlite: Invalid values: Argument: format, Given: "xml", Choices: "table", .* \(see crawlite --help\)$/);
    for (const argv of [['query', 'x.sqlite'], ['crawl'], [], ['crawl', 'example.com', '-q', '-v']]) {
      expectOneLine(await runCli(argv), /\(see crawlite --help\)$/);
    }
  });
});

describe('numeric options', () => {
  const missing = tmp.path('no-such-archive.sqlite');
  for (const [flag, { min, max }] of Object.entries(NUMERIC_FLAGS)) {
    it(`--${flag} takes whole numbers from ${min} to ${max}, and refuses the rest in one line`, async () => {
      // Large numbers are out of range only for options whose range ends below them (not for a byte count of a disk).
      for (const bad of [min - 1, max + 1, 1e10, 3_000_000_000, min + 0.5].filter(
        (value) => value > max || !Number.isInteger(value) || value < min,
      )) {
        const result = await runCli(['resume', missing, `--${flag}`, String(bad)]);
        expectOneLine(result, new RegExp(`^crawlite: --${flag} must be a whole number( of \\w+)? from ${min} to ${max}, got ${bad}`));
      }
      expectOneLine(await runCli(['resume', missing, `--${flag}`, 'soon']), new RegExp(`--${flag} must be a whole number`));
      // In range, the flag is taken: what stops the run is the missing archive.
      for (const good of [min, max]) expectOneLine(await runCli(['resume', missing, `--${flag}`, String(good)]), /no such archive/);
      expect(existsSync(missing)).toBe(false);
    });
  }
});

describe('archives that are not files', () => {
  for (const [command, path] of [
    ['crawl', ''],
    ['crawl', ':memory:'],
    ['demo', ''],
    ['demo', ':memory:'],
    ['resume', ''],
    ['resume', ':memory:'],
  ] as const) {
    it(`${command} refuses ${JSON.stringify(path)}, fetching nothing`, async () => {
      const before = server.totalHits();
      const argv =
        command === 'crawl' ? ['crawl', server.url, '--db', path] : command === 'demo' ? ['demo', '--db', path] : ['resume', path];
      expectOneLine(await runCli(argv), new RegExp(`"${path}" is not an archive file`));
      expect(server.totalHits()).toBe(before);
    });
  }
});

describe('help', () => {
  const help = async (command: string) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    return result.stdout;
  };

  it('prints every example on one line, whole', async () => {
    for (const command of ['crawl', 'resume', 'query', 'stats', 'demo']) {
      const text = await help(command);
      const examples = text
        .slice(text.indexOf('Examples:') + 'Examples:'.length)
        .trim()
        .split('\n')
        .map((line) => line.trim());
      expect(examples.length, command).toBeGreaterThan(0);
      for (const line of examples) expect(line, `${command}: ${line}`).toMatch(/^crawlite \w+ /);
    }
  });

  it('shows no empty default for the roots', async () => {
    expect(await help('crawl')).not.toContain('[default: []]');
  });

  it('offers "log every fetch" only where there are fetches', async () => {
    for (const command of ['query', 'stats']) expect(await help(command), command).not.toContain('log every fetch');
    for (const command of ['crawl', 'resume', 'demo']) expect(await help(command), command).toContain('log every fetch');
  });

  it('shows resume and retry the stored values, not the defaults of a new crawl', async () => {
    for (const command of ['resume', 'retry']) {
      const text = await help(command);
      expect(text, command).toMatch(/--concurrency.*\[default: stored\]/);
      expect(text, command).not.toMatch(/\[default: (10|30000|true|false)/);
    }
  });
});

describe('Ctrl-C', () => {
  it('says at once, even with -q, how many requests it lets finish', async () => {
    const db = tmp.path('ctrl-c.sqlite');
    let stderr = '';
    let handler: (() => void) | undefined;
    let notice: string | undefined;
    let seenAtOnce = '';
    const code = await main(['crawl', server.url, '--db', db, '-q', '-c', '2'], {
      stdout: () => undefined,
      drain: () => Promise.resolve(true),
      stderr: (text) => {
        stderr += text;
      },
      isTTY: false,
      onInterrupt(h, quit) {
        handler = h;
        notice = quit;
        const started = Date.now();
        const poll = setInterval(() => {
          if (server.inFlight > 0 || Date.now() - started > 10_000) {
            clearInterval(poll);
            handler?.();
            // The notice is written before the handler returns.
            seenAtOnce = stderr;
          }
        }, 2);
        return () => {
          handler = undefined;
        };
      },
      owner: { pid: process.pid, host: hostname() },
      version: '0.0.0-test',
    });
    expect(code).toBe(130);
    expect(seenAtOnce).toMatch(/^stopping: finishing [12] requests? in flight \(Ctrl-C again to quit now; resume continues\)\n$/);
    expect(notice).toBe(`crawlite: stopped at once; continue with: crawlite resume ${db}\n`);
  });
});
