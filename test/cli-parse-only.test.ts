import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { shellCommands } from './support/shell-words.js';

// Parse-only mode holds the documentation's examples to the CLI: the command line is checked by the
// CLI's own parser and nothing runs.

describe('main in parse-only mode', () => {
  const tmp = tempDir();

  it('accepts a command line the CLI would run, and runs nothing', async () => {
    const db = tmp.path('never.sqlite');
    const run = await runCli(['crawl', 'http://127.0.0.1:9/', '--db', db, '-c', '4', '--max-pages', '10'], { parseOnly: true });
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(db)).toBe(false);
  });

  it('refuses what the parser refuses: an unknown flag, a bad choice, a missing argument', async () => {
    for (const argv of [
      ['crawl', 'http://127.0.0.1:9/', '--db', 'a.sqlite', '--no-such-flag'],
      ['search', 'a.sqlite', 'word', '--mode', 'psychic'],
      ['query'],
      ['crawl-everything'],
    ]) {
      const run = await runCli(argv, { parseOnly: true });
      expect(run.code, argv.join(' ')).toBe(1);
      expect(run.stderr, argv.join(' ')).toMatch(/^crawlite: .+\(see crawlite --help\)\n$/);
    }
  });
});

describe("the demo's suggestions", () => {
  const tmp = tempDir();

  it('are each a command line the CLI accepts, for the archive the demo made', async () => {
    const db = tmp.path('demo.sqlite');
    const demo = await runCli(['demo', '--db', db]);
    expect(demo.code, demo.stderr).toBe(0);
    const suggested = demo.stdout.split('\n').filter((line) => line.startsWith('  npx crawlite '));
    expect(suggested.length).toBeGreaterThanOrEqual(4);
    expect(suggested.some((line) => line.includes(' serve '))).toBe(true);
    for (const line of suggested) {
      const [command] = shellCommands(line);
      expect(command!.slice(0, 2)).toEqual(['npx', 'crawlite']);
      expect(command, line).toContain(db);
      const parsed = await runCli(command!.slice(2), { parseOnly: true });
      expect(parsed.code, `${line}: ${parsed.stderr}`).toBe(0);
    }
  });
});
