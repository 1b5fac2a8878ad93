/** The HTML toolkit: pure parsing of pages and stylesheets, and decoding of their bytes. Nothing here knows about crawling or storage. */
export {
  extractPage,
  findBase,
  mentionsBase,
  trimUrl,
  MAX_TEXT_CHARS,
  MAX_ATTRIBUTE_CHARS,
  TEXT_EXTRACTION_VERSION,
  type FoundKind,
  type FoundLink,
  type PageFacts,
  type ExtractedText,
  type OnLink,
  type HtmlSource,
} from './extract-page.js';
export { extractCssUrls } from './extract-css-urls.js';
export { baseOf } from './resolve-base.js';
export { charsetOf, decodeText, isHtml, isCss } from './decode-text.js';
export { sniffCharset, decodeHtml, decodeHtmlPieces, type CharsetSource, type SniffedCharset } from './sniff-charset.js';
export { decodePieces, decodeWindows1252, PIECE_BYTES } from './decode-pieces.js';
