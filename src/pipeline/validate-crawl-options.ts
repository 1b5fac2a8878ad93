import { CrawliteError } from '../crawlite-error.js';
import { DEFAULT_OPTIONS } from './crawl-options.js';
import { CRAWL_OPTION_DEFINITIONS, definitionOf, type CrawlOptions, type OptionKey } from './option-definitions.js';
import { compilePatterns } from './compile-patterns.js';

/** An option with a value the crawl cannot take: out of range, of the wrong type, unknown, or in conflict. */
export class InvalidOptionError extends CrawliteError {
  /** The option at fault, as the caller spelled it. */
  readonly option: string;

  constructor(option: string, message: string, options?: { cause?: unknown }) {
    super('INVALID_OPTION', message, options);
    this.option = option;
  }
}

/**
 * How an option is named in messages: `concurrency` for a library caller, `--concurrency` on the command
 * line. With a value, the option as given: `requisites: false`, or `--no-requisites`.
 */
export type NameOption = (key: OptionKey, value?: unknown) => string;

const byKey: NameOption = (key, value) => (value === undefined ? key : `${key}: ${JSON.stringify(value)}`);

const UNIT_WORDS = { count: '', ms: ' of ms', bytes: ' of bytes' } as const;

function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** Checks one option's value against its definition and returns it; throws InvalidOptionError. */
export function checkOptionValue<K extends OptionKey>(key: K, value: unknown, name: NameOption = byKey): CrawlOptions[K] {
  const definition = definitionOf(key);
  const fail = (wanted: string) => new InvalidOptionError(key, `${name(key)} must be ${wanted}, got ${shown(value)}`);
  switch (definition.kind) {
    case 'integer': {
      const { min, max, unit } = definition;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
        throw fail(`a whole number${UNIT_WORDS[unit]} from ${min} to ${max}`);
      }
      break;
    }
    case 'boolean':
      if (typeof value !== 'boolean') throw fail('true or false');
      break;
    case 'patterns':
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
        throw fail('an array of regular expressions (strings)');
      try {
        compilePatterns(value, name(key));
      } catch (error) {
        throw new InvalidOptionError(key, (error as Error).message, { cause: error });
      }
      break;
    case 'text':
      if (typeof value !== 'string') throw fail('a string');
      break;
  }
  return value as CrawlOptions[K];
}

/** Options that cannot be given together. */
export function checkConflicts(given: Partial<CrawlOptions>, name: NameOption = byKey): void {
  if (given.requisites === false && given.requisitesAnyHost === true) {
    throw new InvalidOptionError('requisitesAnyHost', `${name('requisitesAnyHost', true)} conflicts with ${name('requisites', false)}`);
  }
  // A rendered page loads its requisites itself: without them it would not render as readers see it.
  if (given.requisites === false && given.browser === true) {
    throw new InvalidOptionError(
      'browser',
      `${name('browser', true)} conflicts with ${name('requisites', false)}: a page renders with its requisites`,
    );
  }
}

/** Checks each option given (absent ones are left absent) and the conflicts between them. */
export function checkCrawlOptions(given: Partial<CrawlOptions>, name: NameOption = byKey): Partial<CrawlOptions> {
  for (const [key, value] of Object.entries(given)) {
    if (!Object.hasOwn(CRAWL_OPTION_DEFINITIONS, key)) {
      throw new InvalidOptionError(
        key,
        `${key} is not a crawl option; the options are ${Object.keys(CRAWL_OPTION_DEFINITIONS).join(', ')}`,
      );
    }
    if (value !== undefined) checkOptionValue(key as OptionKey, value, name);
  }
  checkConflicts(given, name);
  return given;
}

/** What a library caller gives: any options, and the User-Agent, which names the crawler to the sites. */
export type CrawlOptionsInput = Partial<CrawlOptions> & Pick<CrawlOptions, 'userAgent'>;

/**
 * The options a crawl runs with: those given, checked as the command line checks its flags, and the
 * defaults for the rest. Throws InvalidOptionError (code `INVALID_OPTION`) naming the option and what it takes.
 */
export function validateCrawlOptions(given: CrawlOptionsInput): CrawlOptions {
  checkCrawlOptions(given);
  if (given.userAgent === undefined) {
    throw new InvalidOptionError('userAgent', 'userAgent must be given: the User-Agent header names the crawler to the sites it visits');
  }
  const present = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  return { ...structuredClone(DEFAULT_OPTIONS), ...present } as CrawlOptions;
}
