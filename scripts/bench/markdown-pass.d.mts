export interface MarkdownPass {
  exitCode: number | null;
  timedOut: boolean;
  wallS: number;
  cpuS?: number;
  peakRssMB?: number;
  /** Rows of page_markdown after the run; undefined when it failed. */
  pages?: number;
  empty?: number;
  archive?: { fileBytes: number };
  output?: string;
}
export interface CrawlRun {
  exitCode: number | null;
  timedOut?: boolean;
  wallS: number;
  cpuS?: number;
  peakRssMB?: number;
  pages?: number;
  requests?: number;
}
export declare function measureMarkdownPass(bin: string, db: string, dir: string, options: { timeoutS: number }): Promise<MarkdownPass>;
export declare function crawlThenMarkdown(crawled: CrawlRun, pass: MarkdownPass): CrawlRun & { archive?: { fileBytes: number } };
export declare function markdownLine(rows: Record<string, Record<string, unknown>>): string | undefined;
