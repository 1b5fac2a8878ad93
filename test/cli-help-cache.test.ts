import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { skipHelpCache } from '../src/cli/skip-help-cache.js';

interface Usage {
  hasCachedHelpMessage(): boolean;
  help(): string;
}
const usageOf = (parser: unknown) =>
  (parser as { getInternalMethods(): { getUsageInstance(): Usage } }).getInternalMethods().getUsageInstance();

/** A parser with one command, as the CLI builds them; the handler records that it ran. */
function parserWith(ran: string[]) {
  return yargs([])
    .command(
      'go <where>',
      'go somewhere',
      (y) => y.option('fast', { type: 'boolean', describe: 'a flag with text to measure' }),
      (args) => void ran.push(String(args.where)),
    )
    .exitProcess(false)
    .strict();
}

describe('skipHelpCache', () => {
  it('leaves a running command unrendered: no help is built as its handler starts', async () => {
    const ran: string[] = [];
    const plain = parserWith(ran);
    await plain.parseAsync(['go', 'home']);
    // What yargs does on its own: the command's help, rendered and kept.
    expect(usageOf(plain).hasCachedHelpMessage()).toBe(true);

    const skipped = parserWith(ran);
    skipHelpCache(skipped);
    await skipped.parseAsync(['go', 'away']);
    expect(ran).toEqual(['home', 'away']);
    expect(usageOf(skipped).hasCachedHelpMessage()).toBe(false);
  });

  it('still renders --help', async () => {
    const parser = parserWith([]);
    skipHelpCache(parser);
    let output = '';
    await parser.parseAsync(['go', '--help'], {}, (_error, _args, text) => {
      output = text;
    });
    expect(output).toContain('a flag with text to measure');
  });
});
