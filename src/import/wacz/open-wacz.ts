import { open } from 'node:fs/promises';
import type { WarcSource } from '../warc-source.js';
import { WaczFileError } from './wacz-errors.js';
import { readListedPages, type ListedPage } from './wacz-pages.js';
import { readZipDirectory, type ZipEntry } from './zip-directory.js';
import { checkEntry, checkReadable, entryAccess } from './zip-entry-bytes.js';

/** A WACZ's WARCs, to import as WARC files, and its page lists. */
export interface Wacz {
  path: string;
  warcs: WarcSource[];
  /** The pages it lists, from pages/pages.jsonl, then pages/extraPages.jsonl. */
  pages(): AsyncGenerator<ListedPage>;
}

const WARC_ENTRY = /^archive\/(?:[^/]+\/)*[^/]+\.warc(?:\.gz)?$/i;
const PAGE_LISTS = [
  { name: 'pages/pages.jsonl', main: true },
  { name: 'pages/extraPages.jsonl', main: false },
];
const DEFLATED = 8;

/** A file read as a WACZ: named so, or a ZIP by its first bytes. */
export async function isZip(path: string): Promise<boolean> {
  if (/\.wacz$/i.test(path)) return true;
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await file.read(head, 0, 4, 0);
    return bytesRead === 4 && head.readUInt32LE(0) === 0x04034b50;
  } finally {
    await file.close();
  }
}

/**
 * Opens a WACZ (crawlite's, Browsertrix's, ReplayWeb.page's, py-wacz's: any ZIP with WARCs in its
 * archive/ folder) and checks it whole before anything is imported: its directory (see
 * readZipDirectory), and every deflated entry it will read, inflated once within its declared size.
 * Its WARCs come in name order; a stored one is read in place, a deflated one inflated as it is read.
 */
export async function openWacz(path: string): Promise<Wacz> {
  const file = await open(path, 'r');
  let entries: ZipEntry[];
  try {
    entries = await readZipDirectory(path, file, (await file.stat()).size);
  } finally {
    await file.close();
  }
  const warcEntries = entries
    .filter((entry) => WARC_ENTRY.test(entry.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (warcEntries.length === 0) throw new WaczFileError(path, 'no WARC in its archive/ folder (archive/*.warc.gz or archive/*.warc)');
  const lists = PAGE_LISTS.flatMap(({ name, main }) => {
    const entry = entries.find((candidate) => candidate.name === name);
    return entry ? [{ entry, main }] : [];
  });
  // A stored WARC is read in place and its records checked as they are read; the rest is read through once now.
  for (const entry of warcEntries) {
    checkReadable(path, entry);
    if (entry.method === DEFLATED) await checkEntry(path, entry);
  }
  for (const { entry } of lists) await checkEntry(path, entry);
  return {
    path,
    warcs: warcEntries.map((entry) => ({
      name: `${path}#${entry.name}`,
      open: async () => ({ bytes: await entryAccess(path, entry), size: entry.size }),
    })),
    async *pages() {
      for (const { entry, main } of lists) yield* readListedPages(path, entry, main);
    },
  };
}
