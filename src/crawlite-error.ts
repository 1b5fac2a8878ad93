/**
 * The base of every error crawlite raises on purpose. `code` is stable and
 * machine-readable; `message` says what failed and where, in words a user can
 * act on. Anything that is not a CrawliteError is a bug and keeps its stack.
 */
export class CrawliteError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  override get name(): string {
    return this.constructor.name;
  }
}
