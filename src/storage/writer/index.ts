// The writer room's door: what the rest of crawlite uses of it (the import sink, text and QA writers, merge's copy SQL).
export { convertPageText, pageTextLayout, type PageTextLayout } from './convert-page-text.js';
export { COPY_CAPTURES_TEMP_TABLES, copyCapturesSql } from './copy-captures.js';
export {
  ImportSink,
  REQUEST_BODY_LEFT_OUT,
  type ExportedCrawl,
  type ImportedPage,
  type ImportedResponse,
  type RefersTo,
} from './import-sink.js';
export type { ListedPageRow } from './listed-pages.js';
export { base32 } from './payload-digest.js';
export { QaWriter, type QaCheck } from './qa-writer.js';
export { reindexText } from './reindex-text.js';
export { fillMarkdown, type ConvertMarkdown, type FillMarkdownOptions, type FillMarkdownResult } from './markdown-writer.js';
export type { SetAsideRevisit } from './set-aside-revisits.js';
