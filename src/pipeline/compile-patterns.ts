import { CrawliteError } from '../crawlite-error.js';

export class InvalidPatternError extends CrawliteError {
  constructor(flag: string, source: string, cause: unknown) {
    super('INVALID_OPTION', `${flag} ${JSON.stringify(source)} is not a valid regular expression`, { cause });
  }
}

/** Compiles user-given regular expressions, naming the flag of the one that is wrong. */
export function compilePatterns(sources: string[], flag: string): RegExp[] {
  return sources.map((source) => {
    try {
      return new RegExp(source);
    } catch (error) {
      throw new InvalidPatternError(flag, source, error);
    }
  });
}
