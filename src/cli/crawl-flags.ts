import type { Argv, Options } from 'yargs';
import {
  checkConflicts,
  checkOptionValue,
  CRAWL_OPTION_DEFINITIONS,
  InvalidOptionError,
  OPTION_KEYS,
  type CrawlOptions,
  type IntegerDefinition,
  type NameOption,
  type OptionDefinition,
  type OptionKey,
} from '../library/options.js';
import { UsageError } from './usage-error.js';

/** Crawl options as given on the command line: absent when not given, so stored options can show through. */
export type GivenOptions = Partial<CrawlOptions>;

type IntegerKey = { [K in OptionKey]: (typeof CRAWL_OPTION_DEFINITIONS)[K] extends { kind: 'integer' } ? K : never }[OptionKey];
export type NumericFlag = (typeof CRAWL_OPTION_DEFINITIONS)[IntegerKey]['flag'];

/** The range each numeric flag accepts, by flag. */
export const NUMERIC_FLAGS = Object.fromEntries(
  OPTION_KEYS.map((key) => CRAWL_OPTION_DEFINITIONS[key] as OptionDefinition)
    .filter((definition): definition is IntegerDefinition => definition.kind === 'integer')
    .map(({ flag, min, max, unit }) => [flag, { min, max, unit }]),
) as Record<NumericFlag, Pick<IntegerDefinition, 'min' | 'max' | 'unit'>>;

/** Options named as typed: `--concurrency`, and with a value `--no-requisites`. */
export const asTyped: NameOption = (key, value) => (value === undefined ? `--${CRAWL_OPTION_DEFINITIONS[key].flag}` : asFlag(key, value));

/** The definition's checks, with their failures as usage errors: one line, and a pointer to --help. */
function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidOptionError) throw new UsageError(error.message);
    throw error;
  }
}

function wholeNumber(key: OptionKey) {
  return (value: unknown): number => {
    // yargs hands over an array when a flag is repeated; the last one given wins, as for strings.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    const number = typeof last === 'number' ? last : typeof last === 'string' && last.trim() !== '' ? Number(last) : Number.NaN;
    // Text that is no number is checked as given, so the refusal echoes it: `got "1s"`.
    return asUsage(() => checkOptionValue(key, Number.isNaN(number) ? last : number, asTyped) as number);
  };
}

/** The default as --help shows it for a new crawl. */
function helpDefault(definition: OptionDefinition): string {
  if (!('default' in definition)) return definition.noDefault;
  switch (definition.kind) {
    case 'boolean':
      return String(definition.negated ? !definition.default : definition.default);
    case 'patterns':
      return definition.default.length ? definition.default.join(', ') : 'none';
    case 'integer': {
      const mebibytes = definition.default / 2 ** 20;
      if (definition.unit === 'ms') return `${definition.default} (ms)`;
      if (definition.unit === 'bytes' && Number.isInteger(mebibytes)) return `${definition.default} (${mebibytes} MiB)`;
      return String(definition.default);
    }
  }
}

const YARGS_TYPE = {
  // No yargs type: its number type turns `1s` into NaN before the check could echo it. One value is required.
  integer: { requiresArg: true },
  boolean: { type: 'boolean' },
  patterns: { type: 'string', array: true },
  text: { type: 'string' },
} as const satisfies Record<OptionDefinition['kind'], Options>;

/** Which command the flags are for: resume's unset options are the stored ones, not the defaults. */
export type FlagsFor = 'new' | 'resume';

/** The options shared by crawl, resume and demo. No yargs defaults: defaults are applied after stored options. */
export function withCrawlFlags<T>(yargs: Argv<T>, flagsFor: FlagsFor = 'new'): Argv<T> {
  yargs.option('verbose', { type: 'boolean', describe: 'log every fetch; show stack traces on errors' });
  for (const key of OPTION_KEYS) {
    const definition: OptionDefinition = CRAWL_OPTION_DEFINITIONS[key];
    // --log is not a crawl option (it is never stored), but --help has always listed it here, before --user-agent.
    if (key === 'userAgent') {
      yargs.option('log', {
        type: 'string',
        describe: 'append one JSON line per fetch to this file (url, status, bytes, ms, links, new links, error)',
      });
    }
    yargs.option(definition.flag, {
      ...YARGS_TYPE[definition.kind],
      ...(definition.alias ? { alias: definition.alias } : {}),
      ...(definition.kind === 'integer' ? { coerce: wholeNumber(key) } : {}),
      defaultDescription: flagsFor === 'resume' ? 'stored' : helpDefault(definition),
      describe: definition.help,
    });
  }
  return yargs;
}

/** Only the options the user typed. */
export function givenOptions(parsed: Record<string, unknown>): GivenOptions {
  const given: Record<string, unknown> = {};
  for (const key of OPTION_KEYS) {
    const definition: OptionDefinition = CRAWL_OPTION_DEFINITIONS[key];
    const value = parsed[definition.flag];
    if (value === undefined) continue;
    given[key] = definition.kind === 'boolean' && definition.negated ? !value : value;
  }
  asUsage(() => checkConflicts(given, asTyped));
  return given as GivenOptions;
}

const quoted = (text: string) => (/^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

/** An option as it would be typed: `--max-pages 300`, `--ignore-robots`, `--exclude a --exclude b`. */
export function asFlag(key: keyof CrawlOptions, value: unknown): string {
  const definition: OptionDefinition = CRAWL_OPTION_DEFINITIONS[key];
  const flag = definition.flag;
  if (typeof value === 'boolean') {
    const on = definition.kind === 'boolean' && definition.negated ? !value : value;
    return on ? `--${flag}` : `--no-${flag}`;
  }
  if (Array.isArray(value)) return value.length ? value.map((item) => `--${flag} ${quoted(String(item))}`).join(' ') : `no --${flag}`;
  return `--${flag} ${quoted(String(value))}`;
}

/** A stored value in words, for "(was ...)". */
export function asValue(key: keyof CrawlOptions, value: unknown): string {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return 'none';
  if (typeof value === 'boolean') {
    const definition: OptionDefinition = CRAWL_OPTION_DEFINITIONS[key];
    return (definition.kind === 'boolean' && definition.negated ? !value : value) ? 'on' : 'off';
  }
  if (Array.isArray(value)) return value.map((item) => quoted(String(item))).join(', ');
  return quoted(String(value));
}
