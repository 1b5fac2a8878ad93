/** What `extractPage` reports about a page, how a page is handed to it, and the limits on what it keeps. */

export type FoundKind = 'link' | 'requisite' | 'refresh' | 'canonical';

export interface FoundLink {
  /** As written: entities decoded, leading/trailing spaces and C0 controls trimmed, not resolved. */
  href: string;
  kind: FoundKind;
  /** The element's own `rel` says `nofollow`; page-wide `<meta name="robots">` is reported separately. */
  nofollow: boolean;
}

export interface PageFacts {
  /** Text of the first `<title>` outside SVG/MathML, whitespace collapsed and trimmed; absent if that is empty. */
  title?: string;
  /** From every `<meta name="robots">`, combined. */
  robots: { nofollow: boolean; noindex: boolean; noarchive: boolean };
  /** The first `<link rel="canonical">` with a non-empty href. */
  canonical?: string;
  /** The page's words, when asked for (see `extractPage`). */
  text?: ExtractedText;
}

/** What a search index keeps of a page besides its title. */
export interface ExtractedText {
  /** Visible text, whitespace collapsed, block elements and `<br>` separating words; at most MAX_TEXT_CHARS. */
  body: string;
  /** The text of each h1–h6, one per line. */
  headings: string;
  /** The first non-empty `<meta name="description">`. */
  description?: string;
  /**
   * How much of the body's text is the text of links, 0 to 1: near 1 on an index, a table of contents or
   * a site map, low on a page of prose. Search ranks such lists below the pages they point to.
   */
  linkShare: number;
  /** The TEXT_EXTRACTION_VERSION that made it. */
  version: number;
}

/** Text kept per page at most: 1 MiB of characters, far past any real article, so a huge page cannot bloat the index. */
export const MAX_TEXT_CHARS = 1024 * 1024;

/**
 * Longest attribute value read (href, src, style, content...): longer ones are passed over as if
 * absent, since a value is held whole while its tag is read. URLs past MAX_URL_LENGTH are skipped
 * later anyway, and recorded as such up to this length.
 */
export const MAX_ATTRIBUTE_CHARS = 1024 * 1024;

/** Receives each link as it is found: in document order, duplicates kept (the caller dedupes). */
export type OnLink = (href: string, kind: FoundKind, nofollow: boolean) => void;

/** A whole document, or the pieces it was decoded in (see `decodeHtmlPieces`): the same result either way. */
export type HtmlSource = string | Iterable<string>;

export const piecesOf = (html: HtmlSource): Iterable<string> => (typeof html === 'string' ? [html] : html);
