import { basename, resolve } from 'node:path';
import { openArchive } from '../storage/archive-reader.js';
import { AppendFile } from './append-file.js';
import { cdxjLine, cdxjLineStart, timestamp14 } from './cdxj.js';
import { ExportPathError } from './export-errors.js';
import { OutputFile } from './output-file.js';
import { SortedLines } from './sorted-lines.js';
import { WACZ_WARC_NAME, writeWacz } from './wacz.js';
import { writeWarc, type WarcSummary } from './write-warc.js';

export interface ExportRequest {
  db: string;
  warc?: string;
  cdxj?: string;
  wacz?: string;
  force: boolean;
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

export interface ExportSummary extends WarcSummary {
  /** The files written, in the order asked. */
  written: string[];
}

/**
 * Exports an archive as a WARC, its CDXJ index, and/or a WACZ holding both,
 * from one read snapshot (a crawl may be writing the archive meanwhile).
 * Every output is written under a temporary name and renamed into place
 * only once all are complete; on any failure none is left behind.
 */
export async function runExport(request: ExportRequest): Promise<ExportSummary> {
  const outputs = [request.warc, request.cdxj, request.wacz].filter((path): path is string => path !== undefined);
  const archive = openArchive(request.db);
  const temps: OutputFile[] = [];
  const temp = (path: string) => {
    const file = new OutputFile(path);
    temps.push(file);
    return file;
  };
  let sorter: SortedLines | undefined;
  try {
    for (const path of outputs) {
      if (resolve(path) === resolve(request.db)) throw new ExportPathError(path, 'is the archive being exported; name another file');
      OutputFile.check(path, request.force);
    }
    if (new Set(outputs.map((path) => resolve(path))).size < outputs.length) throw new ExportPathError(outputs[0]!, 'named for two outputs; give each its own file');

    // The WACZ holds the same WARC bytes: written once, copied in.
    const warcOut = temp(request.warc ?? `${request.wacz}.warc.gz`);
    const filename = request.warc ? basename(request.warc) : WACZ_WARC_NAME;
    const pagesOut = request.wacz ? temp(`${request.wacz}.pages.jsonl`) : undefined;
    const indexed = request.cdxj !== undefined || request.wacz !== undefined;
    sorter = indexed ? new SortedLines(warcOut.temp) : undefined;

    const warc = new AppendFile(warcOut.temp);
    const pages = pagesOut && new AppendFile(pagesOut.temp);
    let summary: WarcSummary;
    try {
      await pages?.write(`${JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' })}\n`);
      summary = await archive.snapshot(() =>
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
    } catch (error) {
      warc.destroy();
      pages?.destroy();
      throw error;
    }
    const crawl = archive.crawlDefinition();
    archive.close();

    if (sorter) await writeIndexes(sorter, request, filename, temp);
    if (request.wacz) {
      const index = temps.find((file) => file.path === `${request.wacz}.index.cdxj`)!;
      const wacz = temp(request.wacz);
      const roots = crawl?.roots ?? [];
      await writeWacz(
        wacz.temp,
        { warc: warcOut.temp, index: index.temp, pages: pagesOut!.temp },
        {
          title: request.title ?? (roots.length ? `crawl of ${roots[0]}${roots.length > 1 ? ` and ${roots.length - 1} more` : ''}` : basename(request.db)),
          ...(request.description !== undefined ? { description: request.description } : {}),
          software: `crawlite ${request.version}`,
          created: new Date(),
        },
      );
    }
    // All complete: into place, the ones asked for.
    for (const file of temps) if (outputs.includes(file.path)) file.commit();
    return { ...summary, written: outputs };
  } finally {
    archive.close();
    for (const file of temps) file.discard();
    await sorter?.dispose();
  }
}

/** A pages.jsonl line; the id is py-wacz's own key for a page, timestamp/URL. */
function pageLine(page: { url: string; date: string; title: string | null }): string {
  const line = { id: `${timestamp14(page.date)}/${page.url}`, url: page.url, ts: page.date, ...(page.title ? { title: page.title } : {}) };
  return `${JSON.stringify(line)}\n`;
}

/** The sorted CDXJ, naming the WARC by its file name (--cdxj) and as the WACZ names it (inside the WACZ). */
async function writeIndexes(sorter: SortedLines, request: ExportRequest, filename: string, temp: (path: string) => OutputFile): Promise<void> {
  const cdxj = request.cdxj ? new AppendFile(temp(request.cdxj).temp) : undefined;
  const index = request.wacz ? new AppendFile(temp(`${request.wacz}.index.cdxj`).temp) : undefined;
  try {
    for await (const start of sorter.sorted()) {
      await cdxj?.write(cdxjLine(start, filename));
      await index?.write(cdxjLine(start, WACZ_WARC_NAME));
    }
    await cdxj?.close();
    await index?.close();
  } catch (error) {
    cdxj?.destroy();
    index?.destroy();
    throw error;
  }
}
