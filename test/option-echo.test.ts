import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { expectOneLine } from './support/one-line-error.js';

// A numeric flag given text is refused with the text as typed, so the user sees what was wrong with it.
const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('a numeric flag given something that is no number', () => {
  const missing = tmp.path('no-such-archive.sqlite');
  for (const [flags, echoed] of [
    [['-c', 'abc'], /^crawlite: --concurrency must be a whole number from 1 to 1000, got "abc" \(see crawlite --help\)$/],
    [['--delay', '1s'], /^crawlite: --delay must be a whole number of ms from 0 to 86400000, got "1s" \(see crawlite --help\)$/],
    [['--max-pages=10k'], /^crawlite: --max-pages must be a whole number from 1 to 1000000000, got "10k" /],
    [['--timeout', ''], /^crawlite: --timeout must be a whole number of ms from 1 to 86400000, got "" /],
  ] as const) {
    it(`${flags.join(' ')} echoes the value given`, async () => {
      expectOneLine(await runCli(['resume', missing, ...flags]), echoed);
      expectOneLine(await runCli(['crawl', 'example.com', '--db', missing, ...flags]), echoed);
      expect(existsSync(missing)).toBe(false);
    });
  }

  it('a flag without its value says so', async () => {
    expectOneLine(await runCli(['resume', missing, '-c']), /Not enough arguments following: c/);
  });
});
