/** The HTML toolkit: pure parsing of pages and stylesheets, and decoding of their bytes. Nothing here knows about crawling or storage. */
export { extractPage } from './extract-page.js';
export { findBase, mentionsBase } from './find-base.js';
export { trimUrl } from './trim-url.js';
export { TEXT_EXTRACTION_VERSION } from './text-collector.js';
export {
  MAX_TEXT_CHARS,
  MAX_ATTRIBUTE_CHARS,
  type FoundKind,
  type FoundLink,
  type PageFacts,
  type ExtractedText,
  type OnLink,
  type HtmlSource,
} from './page-facts.js';
export { extractCssUrls } from './extract-css-urls.js';
export { parseSrcset } from './srcset.js';
export { parseRefresh, findRefreshUrl } from './meta-refresh.js';
export { baseOf } from './resolve-base.js';
export { charsetOf, decodeText, isHtml, isCss } from './decode-text.js';
export { sniffCharset, decodeHtml, decodeHtmlPieces, type CharsetSource, type SniffedCharset } from './sniff-charset.js';
export { decodePieces, decodeWindows1252, PIECE_BYTES } from './decode-pieces.js';
export { captureText, type CaptureBody } from './capture-text.js';
