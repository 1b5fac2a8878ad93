import { CRAWL_OPTION_DEFINITIONS, OPTION_KEYS, type CrawlOptions, type DefaultedKey } from './option-definitions.js';

export type { CrawlOptions } from './option-definitions.js';
export { MAX_CRAWL_DELAY_MS, MAX_RETRY_AFTER_MS, MAX_ROBOTS_REDIRECTS, MAX_URL_LENGTH } from './crawl-limits.js';

/** Every option the crawl needs except the User-Agent, which the caller names. */
export type DefaultOptions = Pick<CrawlOptions, DefaultedKey>;

// Compile-time: an option the crawl requires has a default, or is the User-Agent.
type RequiredKey = { [K in keyof CrawlOptions]-?: object extends Pick<CrawlOptions, K> ? never : K }[keyof CrawlOptions];
const everyRequiredOptionHasADefault: [Exclude<RequiredKey, DefaultedKey | 'userAgent'>] extends [never] ? true : never = true;
void everyRequiredOptionHasADefault;

/** The defaults of the definitions, arrays copied so no caller can change them for the next. */
export const DEFAULT_OPTIONS: DefaultOptions = Object.fromEntries(
  OPTION_KEYS.flatMap((key) => {
    const definition = CRAWL_OPTION_DEFINITIONS[key];
    if (!('default' in definition)) return [];
    const value: unknown = definition.default;
    return [[key, Array.isArray(value) ? [...(value as unknown[])] : value]];
  }),
) as DefaultOptions;
