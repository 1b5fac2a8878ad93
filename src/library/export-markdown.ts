/** Each page's Markdown as files: one `.md` per page, `llms.txt` and `llms-full.txt` (see docs/markdown.md). */
export { exportMarkdown, type MarkdownExportOptions, type MarkdownExportSummary } from '../export/markdown-export.js';
