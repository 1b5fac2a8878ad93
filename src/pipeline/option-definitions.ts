import { MAX_COUNT, MAX_DISK_BYTES, MAX_IN_FLIGHT, MAX_RETRY_AFTER_MS, MAX_STORED_BODY_BYTES, MAX_WAIT_MS } from './crawl-limits.js';

/** What every option says about itself: its flag, and the words --help, the README and an example use. */
interface Documented {
  /** The command-line flag, without `--`. */
  flag: string;
  alias?: string;
  /** One line for --help. */
  help: string;
  /** The README's line, which may say more. */
  doc: string;
  /** A command line using the option (after `npx crawlite `), as the README shows it. */
  example: { command: string; comment?: string };
}

/** A value the option has when not given, or the words for what happens instead ("none", "the concurrency"). */
type Fallback<T> = { default: T } | { optional: true; noDefault: string };

export type IntegerDefinition = Documented & {
  kind: 'integer';
  /** What the number counts, for messages: "a whole number of ms". */
  unit: 'count' | 'ms' | 'bytes';
  placeholder: string;
  min: number;
  max: number;
} & Fallback<number>;

export interface SwitchDefinition extends Documented {
  kind: 'boolean';
  default: boolean;
  /** The flag turns the option off (`--ignore-robots` sets `robots: false`). */
  negated?: true;
}

export interface PatternsDefinition extends Documented {
  kind: 'patterns';
  placeholder: string;
  default: readonly string[];
}

/** Text without a default: the caller supplies it (the CLI names its own version), or it may be left out (`optional`). */
export interface TextDefinition extends Documented {
  kind: 'text';
  placeholder: string;
  noDefault: string;
  optional?: true;
}

export type OptionDefinition = IntegerDefinition | SwitchDefinition | PatternsDefinition | TextDefinition;

/**
 * Every option that shapes a crawl, once: the `CrawlOptions` type, the defaults, the range checks, the
 * command-line flags and the README's option table all come from here. Options are stored in the archive,
 * so `resume` needs only the file. Listed in the order --help shows them.
 */
export const CRAWL_OPTION_DEFINITIONS = {
  concurrency: {
    kind: 'integer',
    flag: 'concurrency',
    alias: 'c',
    placeholder: 'N',
    unit: 'count',
    min: 1,
    max: MAX_IN_FLIGHT,
    default: 10,
    help: 'requests in flight at most',
    doc: 'requests in flight at most, across the whole crawl (keep-alive connections are reused)',
    example: { command: 'crawl example.com --db example.sqlite -c 4', comment: '4 requests in flight' },
  },
  maxRedirects: {
    kind: 'integer',
    flag: 'max-redirects',
    placeholder: 'N',
    unit: 'count',
    min: 0,
    max: 100,
    default: 10,
    help: 'redirects followed from one URL',
    doc: 'redirects (and meta refreshes) followed from one URL; one more and that URL is `failed` (`too_many_redirects`)',
    example: { command: 'crawl https://example.com --max-redirects 5', comment: 'a sixth redirect fails the URL' },
  },
  maxTries: {
    kind: 'integer',
    flag: 'max-tries',
    placeholder: 'N',
    unit: 'count',
    min: 1,
    max: 100,
    default: 4,
    help: 'attempts per URL for network errors, timeouts, 429 and 5xx',
    doc: 'attempts per URL, the first included, for network errors, timeouts, 429 and 5xx',
    example: { command: 'crawl https://example.com --max-tries 2', comment: 'one retry at most' },
  },
  timeoutMs: {
    kind: 'integer',
    flag: 'timeout',
    placeholder: 'MS',
    unit: 'ms',
    min: 1,
    max: MAX_WAIT_MS,
    default: 30_000,
    help: 'whole-request time limit in ms',
    doc: 'limit for a whole request: connecting, headers and body',
    example: { command: 'crawl https://example.com --timeout 10000', comment: '10 s per request' },
  },
  retryDelayMs: {
    kind: 'integer',
    flag: 'retry-delay',
    placeholder: 'MS',
    unit: 'ms',
    min: 0,
    max: MAX_RETRY_AFTER_MS,
    default: 1_000,
    help: 'base of the exponential backoff between tries, in ms (at most 60000)',
    doc: 'base of the exponential backoff between tries (with jitter); `Retry-After` wins, capped at 60 s',
    example: { command: 'crawl https://example.com --retry-delay 500', comment: 'the first retry within 0.5 s, then doubling' },
  },
  maxBodyBytes: {
    kind: 'integer',
    flag: 'max-body',
    placeholder: 'BYTES',
    unit: 'bytes',
    min: 1,
    max: MAX_STORED_BODY_BYTES,
    default: 100 * 1024 * 1024,
    help: 'largest body kept, in bytes after decompression',
    doc: 'largest body kept, counted after decompression; larger is `failed` (`body_too_large`), and no more than that is ever held in memory',
    example: { command: 'crawl https://example.com --max-body 10485760', comment: 'bodies up to 10 MiB' },
  },
  lenient: {
    kind: 'boolean',
    flag: 'lenient',
    default: false,
    help: "also crawl subdomains of each root's registrable domain",
    doc: "also crawl subdomains of each root's registrable domain",
    example: { command: 'crawl https://docs.example.org https://blog.example.org --lenient', comment: 'and their subdomains' },
  },
  exclude: {
    kind: 'patterns',
    flag: 'exclude',
    placeholder: 'RE',
    default: [],
    help: 'regular expression of URLs not to fetch (repeatable)',
    doc: 'do not fetch URLs matching this regular expression; repeatable',
    example: { command: "crawl https://example.com --exclude '\\?sort=' --exclude '/calendar/'" },
  },
  include: {
    kind: 'patterns',
    flag: 'include',
    placeholder: 'RE',
    default: [],
    help: 'regular expression a page URL must match (repeatable; any one)',
    doc: 'fetch only pages whose URL matches one of these; repeatable (requisites are not filtered)',
    example: { command: "crawl https://example.com --include '/docs/' --include '/blog/'" },
  },
  maxDepth: {
    kind: 'integer',
    flag: 'max-depth',
    placeholder: 'N',
    unit: 'count',
    min: 0,
    max: MAX_COUNT,
    optional: true,
    noDefault: 'none',
    help: 'link distance from a root beyond which pages are not fetched',
    doc: "fetch a page only if its shortest link distance from a root is at most N (roots are 0; a redirect target keeps its source's depth)",
    example: { command: 'crawl https://example.com --max-depth 3', comment: 'three clicks from the home page' },
  },
  maxPages: {
    kind: 'integer',
    flag: 'max-pages',
    placeholder: 'N',
    unit: 'count',
    min: 1,
    max: MAX_COUNT,
    optional: true,
    noDefault: 'none',
    help: 'pages requested at most (requisites, sitemaps and robots.txt not counted); resume with a larger value goes on',
    doc:
      "at most N pages (URLs of kind `page`: HTML documents and other linked files, redirect hops included) requested over the archive's life; " +
      'requisites, sitemaps and robots.txt are not counted, and the requisites of pages fetched are still fetched after the limit. ' +
      'The crawl then ends with exit 0, and `resume --max-pages M` with a larger M goes on (and stores M)',
    example: { command: 'crawl https://example.com --max-pages 10000' },
  },
  maxPerPath: {
    kind: 'integer',
    flag: 'max-per-path',
    placeholder: 'N',
    unit: 'count',
    min: 0,
    max: MAX_COUNT,
    default: 10_000,
    help: 'URLs at most sharing one path with different queries (a trap guard); 0 lifts it',
    doc: 'trap guard: at most N URLs sharing one path with different queries; `0` lifts it',
    example: { command: 'crawl https://example.com --max-per-path 100', comment: 'a tighter trap guard' },
  },
  maxPathRepeats: {
    kind: 'integer',
    flag: 'max-path-repeats',
    placeholder: 'N',
    unit: 'count',
    min: 0,
    max: MAX_COUNT,
    default: 3,
    help: 'skip paths whose segments repeat more often in a row (a trap guard); 0 lifts it',
    doc: 'trap guard: skip paths where a run of 1–5 segments repeats more than N times in a row (`/a/b/a/b/a/b/a/b/`); `0` lifts it',
    example: { command: 'crawl https://example.com --max-path-repeats 2', comment: 'a tighter trap guard' },
  },
  maxLinksPerPage: {
    kind: 'integer',
    flag: 'max-links-per-page',
    placeholder: 'N',
    unit: 'count',
    min: 0,
    max: MAX_COUNT,
    default: 10_000,
    help: 'distinct URLs read from one page, stylesheet or sitemap at most, the first in document order (a trap guard); 0 lifts it',
    doc:
      'trap guard: read at most the first N distinct URLs of one page, stylesheet or sitemap (Heritrix keeps 6000); ' +
      'the rest are counted in `pages.links_dropped`; `0` lifts it',
    example: { command: 'crawl https://example.com --max-links-per-page 500', comment: 'fewer links read from huge pages' },
  },
  perHost: {
    kind: 'integer',
    flag: 'per-host',
    placeholder: 'N',
    unit: 'count',
    min: 1,
    max: MAX_IN_FLIGHT,
    optional: true,
    noDefault: 'the concurrency',
    help: 'requests in flight at most on one host',
    doc: 'requests in flight at most on one host (origin)',
    example: { command: 'crawl https://example.com --per-host 2', comment: '2 at a time on each host' },
  },
  delayMs: {
    kind: 'integer',
    flag: 'delay',
    placeholder: 'MS',
    unit: 'ms',
    min: 0,
    max: MAX_WAIT_MS,
    optional: true,
    noDefault: "robots.txt's Crawl-delay",
    help: 'minimum gap in ms between request starts on one host',
    doc: 'minimum gap between request starts on one host; given, it replaces Crawl-delay',
    example: { command: 'crawl https://example.com --delay 500', comment: '0.5 s between request starts on a host' },
  },
  minFreeDisk: {
    kind: 'integer',
    flag: 'min-free-disk',
    placeholder: 'BYTES',
    unit: 'bytes',
    min: 0,
    max: MAX_DISK_BYTES,
    default: 500_000_000,
    help: "pause the crawl when free space on the archive's disk falls under this many bytes (0: never)",
    doc: "the crawl pauses itself when free space on the archive's disk falls under this (checked every few seconds) and says so; `crawlite control FILE resume` or a lower `control set --min-free-disk` goes on; `0` never pauses",
    example: { command: 'crawl https://example.com --min-free-disk 5000000000', comment: 'pause under 5 GB free' },
  },
  robots: {
    kind: 'boolean',
    flag: 'ignore-robots',
    negated: true,
    default: true,
    help: 'ignore robots.txt, Crawl-delay and nofollow',
    doc: 'do not fetch or obey robots.txt, Crawl-delay or nofollow',
    example: { command: 'crawl https://example.com --ignore-robots', comment: 'your own site, robots.txt aside' },
  },
  sitemaps: {
    kind: 'boolean',
    flag: 'sitemaps',
    default: false,
    help: 'seed the crawl from robots.txt Sitemap: lines and /sitemap.xml',
    doc: 'seed the crawl from robots.txt `Sitemap:` lines and `/sitemap.xml` (sitemap indexes and gzipped sitemaps too)',
    example: { command: 'crawl https://example.com --sitemaps', comment: 'orphan pages listed in sitemaps too' },
  },
  requisites: {
    kind: 'boolean',
    flag: 'requisites',
    default: true,
    help: 'fetch page requisites (images, scripts, stylesheets, media); --no-requisites to skip them',
    doc: 'fetch page requisites (images, scripts, stylesheets, media); `--no-requisites` to skip them',
    example: { command: 'crawl https://example.com --no-requisites', comment: 'pages only' },
  },
  requisitesAnyHost: {
    kind: 'boolean',
    flag: 'requisites-any-host',
    default: false,
    help: 'fetch requisites from any host (CDNs), not only in-scope ones',
    doc: "fetch requisites from any host (CDNs), not only from the crawl's sites",
    example: { command: 'crawl https://example.com --requisites-any-host', comment: 'images and scripts from CDNs too' },
  },
  text: {
    kind: 'boolean',
    flag: 'text',
    default: true,
    help: "keep each HTML page's text for full-text search (crawlite search); --no-text to skip it",
    doc: "keep each HTML page's text in `page_text` for full-text search (`crawlite search`); `--no-text` to skip it (`crawlite reindex` adds it later)",
    example: { command: 'crawl https://example.com --no-text', comment: 'no search index: a smaller, faster archive' },
  },
  compact: {
    kind: 'boolean',
    flag: 'compact',
    default: false,
    help: 'store bodies zlib-compressed (the sqlar convention); the archive stays compact for every later write',
    doc: 'store bodies zlib-compressed in the sqlar convention (see [archive.md](archive.md#compressed-bodies)); the archive stays compact across resume, re-crawl, import and merge',
    example: { command: 'crawl https://example.com --compact', comment: 'bodies compressed: a smaller archive' },
  },
  browser: {
    kind: 'boolean',
    flag: 'browser',
    default: false,
    help: 'render each HTML page in headless Chromium and archive every exchange it makes, and a screenshot',
    doc: 'render each HTML page in headless Chromium: the scripts, stylesheets, fonts, images and `fetch`/XHR answers the page loads are archived with it, links and text are read from the rendered page, and a screenshot is kept (see [Capturing what a browser sees](#capturing-what-a-browser-sees))',
    example: { command: 'crawl https://app.example.com --browser', comment: 'a site built by scripts' },
  },
  browserWrites: {
    kind: 'boolean',
    flag: 'browser-writes',
    default: false,
    help: 'let rendered pages send PUT, PATCH, DELETE and other writes to the site (refused by default)',
    doc: 'let pages rendered by `--browser` send PUT, PATCH, DELETE and any method but GET, HEAD, OPTIONS and POST to the site; by default they are refused before they leave the browser and recorded as skipped (`write_refused`), so archiving a site never changes it',
    example: { command: 'crawl https://wiki.example.com --browser --browser-writes', comment: 'a site whose pages save their state' },
  },
  chromium: {
    kind: 'text',
    flag: 'chromium',
    placeholder: 'PATH',
    optional: true,
    noDefault: '$CRAWLITE_CHROMIUM, else /usr/bin/chromium',
    help: 'the Chromium that --browser runs',
    doc: 'the Chromium (or Chrome) executable `--browser` runs; default `$CRAWLITE_CHROMIUM`, else `/usr/bin/chromium`',
    example: { command: 'crawl https://app.example.com --browser --chromium /opt/chrome/chrome', comment: 'another Chromium' },
  },
  qa: {
    kind: 'boolean',
    flag: 'qa',
    default: false,
    help: 'once the crawl ends, replay every page in Chromium and score how faithfully it replays (as crawlite qa)',
    doc: "once the crawl ends, replay every page in Chromium and store how faithfully it replays, as [`crawlite qa`](#crawlite-qa-db-options) does (the `qa` view, the QA page of `serve`), and print its summary; with `--browser`, the replay is held against each page's screenshot too",
    example: { command: 'crawl https://app.example.com --browser --qa', comment: 'and check how every page replays' },
  },
  userAgent: {
    kind: 'text',
    flag: 'user-agent',
    placeholder: 'UA',
    noDefault: 'crawlite/<version>',
    help: 'User-Agent header, and the token matched in robots.txt',
    doc: 'the User-Agent header; its product token (`crawlite`) picks the robots.txt group',
    example: { command: "crawl https://example.com --user-agent 'archivebot/1.0'", comment: 'robots.txt group "archivebot"' },
  },
} as const satisfies Record<string, OptionDefinition>;

type Definitions = typeof CRAWL_OPTION_DEFINITIONS;

type ValueOf<D> = D extends { kind: 'integer' }
  ? number
  : D extends { kind: 'boolean' }
    ? boolean
    : D extends { kind: 'patterns' }
      ? string[]
      : string;

/** Options that may be absent: no limit, or a value derived from another option. */
type OptionalKey = { [K in keyof Definitions]: Definitions[K] extends { optional: true } ? K : never }[keyof Definitions];

/** Options with a default value. */
export type DefaultedKey = { [K in keyof Definitions]: Definitions[K] extends { default: unknown } ? K : never }[keyof Definitions];

type Flat<T> = { [K in keyof T]: T[K] };

/** Everything that shapes a crawl, as the table above defines it. */
export type CrawlOptions = Flat<
  { -readonly [K in Exclude<keyof Definitions, OptionalKey>]: ValueOf<Definitions[K]> } & {
    -readonly [K in OptionalKey]?: ValueOf<Definitions[K]>;
  }
>;

export type OptionKey = keyof CrawlOptions;

/** The definitions in table order, each with its key. */
export const OPTION_KEYS = Object.keys(CRAWL_OPTION_DEFINITIONS) as OptionKey[];

export function definitionOf(key: OptionKey): OptionDefinition {
  return CRAWL_OPTION_DEFINITIONS[key];
}
