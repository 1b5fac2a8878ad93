import { accessSync, constants, statSync } from 'node:fs';
import { BrowserMissingError } from './browser-errors.js';

/** Debian's package (`apt-get install chromium`): where the crawl looks when told nothing. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * The Chromium to run: `path` if given, else $CRAWLITE_CHROMIUM, else Debian's. Throws
 * BrowserMissingError unless it is an executable file, so a crawl fails before it starts.
 */
export function resolveChromium(path?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = path || env.CRAWLITE_CHROMIUM || DEFAULT_CHROMIUM;
  try {
    if (!statSync(chosen).isFile()) throw new BrowserMissingError(chosen);
    accessSync(chosen, constants.X_OK);
  } catch {
    throw new BrowserMissingError(chosen);
  }
  return chosen;
}
