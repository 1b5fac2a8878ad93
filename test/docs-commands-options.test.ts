import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CRAWL_OPTION_DEFINITIONS, OPTION_KEYS, type OptionDefinition } from '../src/pipeline/option-definitions.js';

// The manual's option table and examples (docs/commands.md) say what the option definitions say.

const COMMANDS = readFileSync(new URL('../docs/commands.md', import.meta.url), 'utf8');

/** Flags the table lists that are not crawl options: they are never stored with the crawl. */
const NOT_CRAWL_OPTIONS = ['log'];

/** The table's row for a definition, as it must read. */
function expectedRow(definition: OptionDefinition): string {
  const typed = `${definition.alias ? `-${definition.alias}, ` : ''}--${definition.flag}${'placeholder' in definition ? ` ${definition.placeholder}` : ''}`;
  const range = definition.kind === 'integer' ? `${definition.min}–${definition.max}` : '';
  return `| \`${typed}\` | ${shownDefault(definition)} | ${range} | ${definition.doc} |`.replace('|  |', '| |');
}

function shownDefault(definition: OptionDefinition): string {
  if (!('default' in definition)) return definition.kind === 'text' ? `\`${definition.noDefault}\`` : definition.noDefault;
  if (definition.kind === 'boolean') return (definition.negated ? !definition.default : definition.default) ? 'on' : 'off';
  if (definition.kind === 'patterns') return definition.default.length ? definition.default.join(', ') : 'none';
  return String(definition.default);
}

/** The rows of the table that starts with `| option | default | range | meaning |`, by flag. */
function tableRows(): Map<string, string> {
  const lines = COMMANDS.split('\n');
  const start = lines.indexOf('| option | default | range | meaning |');
  expect(start, 'docs/commands.md has the option table').toBeGreaterThan(0);
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const flag = /--([\w-]+)/.exec(line)?.[1];
    expect(flag, line).toBeDefined();
    expect(rows.has(flag!), `--${flag} has one row`).toBe(false);
    rows.set(flag!, line);
  }
  return rows;
}

/** The command lines of the block after "Examples, one per option:", whitespace made single. */
function optionExamples(): string[] {
  const block = /Examples, one per option:\n\n```sh\n([\s\S]*?)```/.exec(COMMANDS)?.[1];
  expect(block, 'docs/commands.md has the examples').toBeDefined();
  return block!
    .trim()
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' '));
}

describe('the option table of docs/commands.md', () => {
  const rows = tableRows();

  for (const key of OPTION_KEYS) {
    const definition: OptionDefinition = CRAWL_OPTION_DEFINITIONS[key];
    it(`shows --${definition.flag} with its default, range and meaning`, () => {
      expect(rows.get(definition.flag), `docs/commands.md row for --${definition.flag}`).toBe(expectedRow(definition));
    });
  }

  it('lists no flag that is not defined', () => {
    const defined = new Set([...OPTION_KEYS.map((key) => CRAWL_OPTION_DEFINITIONS[key].flag as string), ...NOT_CRAWL_OPTIONS]);
    expect([...rows.keys()].filter((flag) => !defined.has(flag))).toEqual([]);
  });

  it('gives the example of each option', () => {
    const examples = optionExamples();
    for (const key of OPTION_KEYS) {
      const { command, comment } = (CRAWL_OPTION_DEFINITIONS[key] as OptionDefinition).example;
      const line = `npx crawlite ${command}${comment ? ` # ${comment}` : ''}`.replace(/\s+/g, ' ');
      expect(examples, `docs/commands.md example for ${key}`).toContain(line);
    }
  });
});
