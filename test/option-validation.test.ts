import { describe, expect, it } from 'vitest';
import { CrawliteError } from '../src/crawlite-error.js';
import { CRAWL_OPTION_DEFINITIONS, OPTION_KEYS, type OptionDefinition } from '../src/pipeline/option-definitions.js';
import { InvalidOptionError, validateCrawlOptions, type CrawlOptionsInput } from '../src/pipeline/validate-crawl-options.js';

// A library caller's options are checked by the same definitions as the command line's flags.

/** Runs the validation on a value a JavaScript caller could pass, whatever its type. */
function refusal(options: Record<string, unknown>): InvalidOptionError {
  try {
    validateCrawlOptions({ userAgent: 'test/1', ...options } as CrawlOptionsInput);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toBeInstanceOf(CrawliteError);
    expect(error).toEqual(expect.objectContaining({ code: 'INVALID_OPTION', name: 'InvalidOptionError' }));
    return error as InvalidOptionError;
  }
  throw new Error(`${JSON.stringify(options)} was accepted`);
}

describe('validateCrawlOptions', () => {
  it('fills in the defaults around the options given', () => {
    const options = validateCrawlOptions({ userAgent: 'test/1', concurrency: 4, exclude: ['\\?sort='], robots: false });
    expect(options).toEqual({
      concurrency: 4,
      maxRedirects: 10,
      maxTries: 4,
      timeoutMs: 30_000,
      retryDelayMs: 1_000,
      maxBodyBytes: 104_857_600,
      lenient: false,
      exclude: ['\\?sort='],
      include: [],
      maxPerPath: 10_000,
      maxPathRepeats: 3,
      maxLinksPerPage: 10_000,
      minFreeDisk: 500_000_000,
      robots: false,
      sitemaps: false,
      requisites: true,
      requisitesAnyHost: false,
      text: true,
      compact: false,
      browser: false,
      browserWrites: false,
      qa: false,
      userAgent: 'test/1',
    });
  });

  it('leaves options without a default absent, and never hands out the same default array twice', () => {
    const first = validateCrawlOptions({ userAgent: 'test/1', maxPages: undefined });
    expect('maxPages' in first || 'perHost' in first || 'delayMs' in first || 'maxDepth' in first).toBe(false);
    first.exclude.push('changed');
    expect(validateCrawlOptions({ userAgent: 'test/1' }).exclude).toEqual([]);
  });

  it('refuses a number out of range, naming the option and its range', () => {
    const error = refusal({ concurrency: 0 });
    expect(error.message).toBe('concurrency must be a whole number from 1 to 1000, got 0');
    expect(error.option).toBe('concurrency');
    expect(refusal({ timeoutMs: 0 }).message).toBe('timeoutMs must be a whole number of ms from 1 to 86400000, got 0');
    expect(refusal({ maxBodyBytes: 1e10 }).message).toBe(
      'maxBodyBytes must be a whole number of bytes from 1 to 1000000000, got 10000000000',
    );
  });

  it('refuses fractions, NaN and numbers given as text', () => {
    expect(refusal({ maxTries: 1.5 }).message).toBe('maxTries must be a whole number from 1 to 100, got 1.5');
    expect(refusal({ delayMs: Number.NaN }).message).toMatch(/^delayMs must be a whole number of ms from 0 to 86400000, got NaN$/);
    expect(refusal({ maxPages: '5' }).message).toBe('maxPages must be a whole number from 1 to 1000000000, got "5"');
  });

  it('takes each number at both ends of its range and refuses one past either end', () => {
    for (const key of OPTION_KEYS) {
      const definition: OptionDefinition = CRAWL_OPTION_DEFINITIONS[key];
      if (definition.kind !== 'integer') continue;
      for (const good of [definition.min, definition.max])
        expect(validateCrawlOptions({ userAgent: 'test/1', [key]: good })[key]).toBe(good);
      for (const bad of [definition.min - 1, definition.max + 1]) {
        expect(refusal({ [key]: bad }).message).toContain(`${key} must be a whole number`);
      }
    }
  });

  it('refuses a switch that is not true or false', () => {
    expect(refusal({ lenient: 'yes' }).message).toBe('lenient must be true or false, got "yes"');
  });

  it('refuses patterns that are not an array of strings, or not a regular expression', () => {
    expect(refusal({ exclude: '/calendar/' }).message).toBe('exclude must be an array of regular expressions (strings), got "/calendar/"');
    expect(refusal({ include: [1] }).option).toBe('include');
    const error = refusal({ exclude: ['ok', '('] });
    expect(error.message).toBe('exclude "(" is not a valid regular expression');
    expect(error.cause).toBeInstanceOf(CrawliteError);
  });

  it('refuses a User-Agent that is missing or not text', () => {
    expect(refusal({ userAgent: 7 }).message).toBe('userAgent must be a string, got 7');
    expect(refusal({ userAgent: undefined }).option).toBe('userAgent');
  });

  it('refuses an option it does not know, listing those it does', () => {
    const error = refusal({ concurency: 4 });
    expect(error.option).toBe('concurency');
    expect(error.message).toMatch(/^concurency is not a crawl option; the options are concurrency, /);
  });

  it('refuses options that conflict, as the command line does', () => {
    expect(refusal({ requisites: false, requisitesAnyHost: true }).message).toBe(
      'requisitesAnyHost: true conflicts with requisites: false',
    );
  });
});
