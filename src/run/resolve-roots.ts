import { CrawliteError } from '../crawlite-error.js';
import { normalizeUrl, withDefaultScheme, withFragment, type NormalizedUrl } from '../url/index.js';

export class InvalidRootError extends CrawliteError {
  constructor(input: string, why: string) {
    super('INVALID_ROOT', `root ${JSON.stringify(input)} ${why}`);
  }
}

const hasScheme = (input: string) => /^[a-z][a-z\d+.-]*:\/\//i.test(input.trim());

/**
 * Why a root that parses still cannot be what the user meant, if so: `http//host`
 * and `http:/host` parse as a host named "http", and `example` as a host without
 * a dot, which only DNS would refuse, after a whole crawl's worth of waiting.
 * A host without a dot is fine when the scheme was typed (`http://intranet/`).
 */
function implausible(input: string, url: URL): string | undefined {
  if (hasScheme(input)) return undefined;
  const host = url.hostname;
  if (host === 'http' || host === 'https') return `is missing the "://" after ${host} (write ${host}://...)`;
  if (host.includes('.') || host === 'localhost' || host.startsWith('[')) return undefined;
  return `has no dot in its host name "${host}": give the full host name, localhost, an IP address, or http://${host}/ for a host on the local network`;
}

/**
 * Roots as typed become canonical http(s) URLs; a root without a scheme gets http://. With `fragments`
 * (crawl --browser) a root keeps its fragment: `#/pkgs/x` or `#HelloThere` is the page a script shows there.
 */
export function resolveRoots(inputs: string[], options: { fragments?: boolean } = {}): NormalizedUrl[] {
  return inputs.map((input) => {
    const typed = withDefaultScheme(input);
    const normalized = normalizeUrl(typed);
    if (!('key' in normalized)) {
      throw new InvalidRootError(
        input,
        normalized.error === 'scheme' ? `is not an http(s) URL (${normalized.detail})` : 'is not a valid URL',
      );
    }
    const why = implausible(input, new URL(normalized.url));
    if (why) throw new InvalidRootError(input, why);
    const fragment = options.fragments ? new URL(typed).hash.slice(1) : '';
    return fragment ? withFragment(normalized, fragment) : normalized;
  });
}
