// What a program or a command line needs before anything runs: the crawl options' definitions and their
// checks, and how roots are read. Light to load (no HTTP client, no SQLite), so a command line can build
// its flags from it at start-up.
export {
  CRAWL_OPTION_DEFINITIONS,
  OPTION_KEYS,
  type IntegerDefinition,
  type OptionDefinition,
  type OptionKey,
} from '../pipeline/option-definitions.js';
export { checkConflicts, checkOptionValue, InvalidOptionError, type NameOption } from '../pipeline/validate-crawl-options.js';
export { compilePatterns as checkPatterns } from '../pipeline/compile-patterns.js';
export type { CrawlOptions } from '../pipeline/crawl-options.js';
export { InvalidRootError, resolveRoots } from '../run/resolve-roots.js';
