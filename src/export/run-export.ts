import { basename } from 'node:path';
import { openArchive, type ArchiveReader } from '../storage/reader/index.js';
import { AppendFile } from './append-file.js';
import { cdxjLine, cdxjLineStart, timestamp14 } from './cdxj.js';
import { ExportFiles, type ExportTargets } from './export-files.js';
import { SortedLines } from './sorted-lines.js';
import { WACZ_WARC_NAME, writeWacz } from './wacz.js';
import type { ExportSummary, WarcSummary } from './export-summary.js';
import { writeWarc } from './write-warc.js';

export interface ExportRequest extends ExportTargets {
  includeFailed: boolean;
  operator?: string;
  description?: string;
  /** The WACZ's title; by default named after the crawl's first root. */
  title?: string;
  version: string;
  /** Stops the export; nothing is left behind. */
  signal?: AbortSignal;
  /** Called as the WARC grows: bytes written, responses so far. */
  progress?: (bytes: number, responses: number) => void;
}

/**
 * Exports an archive as a WARC, its CDXJ index, and/or a WACZ holding both,
 * from one read snapshot (a crawl may be writing the archive meanwhile).
 * Every output is written under a temporary name and renamed into place
 * only once all are complete; on any failure none is left behind.
 */
export async function runExport(request: ExportRequest): Promise<ExportSummary> {
  const archive = openArchive(request.db);
  let files: ExportFiles | undefined;
  let sorter: SortedLines | undefined;
  try {
    files = new ExportFiles(request);
    // In SURT order, not URL order: sorted once the WARC is written.
    sorter = files.cdxj || files.wacz ? new SortedLines(files.warc.temp) : undefined;
    const filename = request.warc ? basename(request.warc) : WACZ_WARC_NAME;
    const summary = await writeWarcAndPages(archive, files, sorter, filename, request);
    const roots = archive.crawlDefinition()?.roots ?? [];
    archive.close();

    // The WARC is only the first part of the work: a stop asked for during the rest ends the export too.
    if (sorter) await writeIndexes(sorter, files, filename, request.signal);
    if (files.wacz) {
      await writeWacz(
        files.wacz.temp,
        { warc: files.warc.temp, index: files.waczIndex!.temp, pages: files.waczPages!.temp },
        {
          title:
            request.title ??
            (roots.length ? `crawl of ${roots[0]}${roots.length > 1 ? ` and ${roots.length - 1} more` : ''}` : basename(request.db)),
          ...(request.description !== undefined ? { description: request.description } : {}),
          software: `crawlite ${request.version}`,
          created: new Date(),
        },
        request.signal,
      );
    }
    // The last moment a stop can be honoured: the renames that follow are synchronous, nothing comes between them.
    request.signal?.throwIfAborted();
    files.commit();
    return { ...summary, written: files.written };
  } finally {
    archive.close();
    files?.discard();
    await sorter?.dispose();
  }
}

/** The WARC, and as it goes the CDXJ lines (to sort) and the WACZ's pages. */
async function writeWarcAndPages(
  archive: ArchiveReader,
  files: ExportFiles,
  sorter: SortedLines | undefined,
  filename: string,
  request: ExportRequest,
): Promise<WarcSummary> {
  const warc = new AppendFile(files.warc.temp);
  const pages = files.waczPages && new AppendFile(files.waczPages.temp);
  try {
    await pages?.write(`${JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' })}\n`);
    const summary = await archive.snapshot(() =>
      writeWarc(
        archive,
        warc,
        {
          filename,
          software: `crawlite/${request.version}`,
          includeFailed: request.includeFailed,
          ...(request.signal ? { signal: request.signal } : {}),
          ...(request.operator !== undefined ? { operator: request.operator } : {}),
          ...(request.description !== undefined ? { description: request.description } : {}),
        },
        {
          capture: (capture) => sorter?.add(cdxjLineStart(capture)),
          page: pages && (async (page) => void (await pages.write(pageLine(page)))),
          ...(request.progress ? { progress: request.progress } : {}),
        },
      ),
    );
    await warc.close();
    await pages?.close();
    return summary;
  } catch (error) {
    await Promise.all([warc.destroy(), pages?.destroy()]);
    throw error;
  }
}

/**
 * A pages.jsonl line; the id is py-wacz's own key for a page, timestamp/URL. `text` is the page's visible text,
 * as Browsertrix's `--text to-pages` writes it: ReplayWeb.page's page search reads it.
 */
function pageLine(page: { url: string; date: string; title: string | null; text: string | undefined }): string {
  const line = {
    id: `${timestamp14(page.date)}/${page.url}`,
    url: page.url,
    ts: page.date,
    ...(page.title ? { title: page.title } : {}),
    ...(page.text ? { text: page.text } : {}),
  };
  return `${JSON.stringify(line)}\n`;
}

/** The sorted CDXJ, naming the WARC by its file name (--cdxj) and as the WACZ names it (inside the WACZ). */
async function writeIndexes(sorter: SortedLines, files: ExportFiles, filename: string, signal: AbortSignal | undefined): Promise<void> {
  const cdxj = files.cdxj && new AppendFile(files.cdxj.temp);
  const index = files.waczIndex && new AppendFile(files.waczIndex.temp);
  try {
    for await (const start of sorter.sorted()) {
      signal?.throwIfAborted();
      await cdxj?.write(cdxjLine(start, filename));
      await index?.write(cdxjLine(start, WACZ_WARC_NAME));
    }
    await cdxj?.close();
    await index?.close();
  } catch (error) {
    await Promise.all([cdxj?.destroy(), index?.destroy()]);
    throw error;
  }
}
