import { CrawliteError } from '../crawlite-error.js';
import { normalizeUrl, withDefaultScheme, type NormalizedUrl } from '../pipeline/normalize-url.js';

export class InvalidRootError extends CrawliteError {
  constructor(input: string, why: string) {
    super('INVALID_ROOT', `root ${JSON.stringify(input)} ${why}`);
  }
}

/** Roots as typed become canonical http(s) URLs; a root without a scheme gets http://. */
export function resolveRoots(inputs: string[]): NormalizedUrl[] {
  return inputs.map((input) => {
    const normalized = normalizeUrl(withDefaultScheme(input));
    if ('key' in normalized) return normalized;
    throw new InvalidRootError(input, normalized.error === 'scheme' ? `is not an http(s) URL (${normalized.detail})` : 'is not a valid URL');
  });
}
