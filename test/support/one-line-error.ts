import { expect } from 'vitest';
import type { CliRun } from './cli.js';

/** Asserts a refusal as users see it: exit 1 (or `code`), one `crawlite: ...` line on stderr matching `phrase`, no stack trace. */
export function expectOneLine(result: CliRun, phrase: RegExp, code = 1): void {
  const shown = `exit ${result.code}\nstderr: ${result.stderr}\nstdout: ${result.stdout}`;
  expect(result.code, shown).toBe(code);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, shown).toHaveLength(1);
  expect(lines[0], shown).toMatch(/^crawlite: /);
  expect(lines[0], shown).toMatch(phrase);
  expect(result.stderr, shown).not.toMatch(/^ {4}at /m);
}
