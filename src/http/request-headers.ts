import { CrawliteError } from '../crawlite-error.js';

export class HeaderOptionError extends CrawliteError {
  constructor(given: string, reason: string) {
    super('BAD_HEADER', `--header ${JSON.stringify(given)}: ${reason}`);
  }
}

/** Headers the crawler must set itself: framing, decoding, and those with an option of their own. */
const RESERVED: Record<string, string> = {
  host: 'the crawler sets Host from each URL',
  'content-length': 'the crawler sends GET requests without a body',
  'transfer-encoding': 'the crawler sends GET requests without a body',
  connection: 'the crawler manages its connections',
  'accept-encoding': 'the crawler undoes only the encodings it asks for',
  'user-agent': 'use --user-agent, which also picks the robots.txt group',
  cookie: "use --cookie 'name=value' or --cookies FILE, so cookies go only to the hosts they belong to",
  'if-none-match': 'validators are the crawler’s own',
  'if-modified-since': 'validators are the crawler’s own',
};

// RFC 9110 token characters for a field name.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `Name: value` strings, as wget and curl take them, into a header record; repeated names are joined with ", ". */
export function parseRequestHeaders(given: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of given) {
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new HeaderOptionError(entry, "expected 'Name: value'");
    const name = entry.slice(0, colon).trim().toLowerCase();
    const value = entry.slice(colon + 1).trim();
    if (!TOKEN.test(name)) throw new HeaderOptionError(entry, `${JSON.stringify(name)} is not a valid header name`);
    // CR, LF and NUL would split the request (header injection).
    if (/[\r\n\0]/.test(value)) throw new HeaderOptionError(entry, 'a header value cannot hold line breaks');
    const reserved = RESERVED[name];
    if (reserved) throw new HeaderOptionError(entry, reserved);
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}
