import type { ImportSink, ListedPageRow } from '../../storage/writer/index.js';
import type { Wacz } from './open-wacz.js';

/** Listed pages taken in at a time. */
const LISTED_BATCH = 1000;

/**
 * The WACZs' page lists, applied after their WARCs are imported: the walk that gives kinds and depths
 * starts at the roots a crawlite warcinfo names, else at the seeds the lists mark (or the pages they
 * list), a URL listed as a page is one whatever the walk found, and one unlisted that nothing links to
 * is a requisite. Returns how many responses the import stored are listed pages.
 */
export async function applyListedPages(waczs: Wacz[], runId: number, sink: ImportSink, warcinfoRoots: string[]): Promise<number> {
  const listed = sink.listedPages();
  try {
    for (const wacz of waczs) {
      let batch: ListedPageRow[] = [];
      for await (const page of wacz.pages()) {
        batch.push(page);
        if (batch.length >= LISTED_BATCH) {
          listed.add(batch);
          batch = [];
        }
      }
      listed.add(batch);
    }
    const roots = warcinfoRoots.length > 0 ? warcinfoRoots : listed.roots();
    sink.rebuildKindsAndDepths(roots);
    return listed.apply(runId, roots);
  } finally {
    listed.drop();
  }
}
