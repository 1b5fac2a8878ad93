import type { ArchivePassInput } from './archive-pass-input.js';
import { runArchivePass } from './archive-pass.js';

/** Markdown made for the HTML pages of an archive crawled or imported without it. */
export type MarkdownInput = ArchivePassInput;

export interface MarkdownReport {
  /** Pages given their Markdown by this run. */
  converted: number;
  /** HTML pages whose latest capture had no Markdown (or an older version's) when the run began. */
  total: number;
  stopped: boolean;
  ms: number;
}

/**
 * Stores the main content of each HTML page's latest capture as Markdown (the `page_markdown` view), under
 * the lock a crawl takes. Read it back with `openArchive(path).markdown(url)`.
 */
export async function markdown(input: MarkdownInput): Promise<MarkdownReport> {
  const [{ pageMarkdown, MARKDOWN_VERSION }, { decodeHtml }] = await Promise.all([
    import('../markdown/index.js'),
    import('../html/index.js'),
  ]);
  return runArchivePass(input, (archive, hooks) =>
    archive.fillMarkdown({
      convert: (body, contentType, url) => pageMarkdown(decodeHtml(body, contentType).text, url),
      version: MARKDOWN_VERSION,
      ...hooks,
    }),
  );
}
