import { openArchive, type ArchiveReport } from '../storage/public.js';

/** An archive's report, as `crawlite stats` prints it: URLs by state, statuses, bytes, errors, rates. */
export function archiveReport(db: string): ArchiveReport {
  const archive = openArchive(db);
  try {
    return archive.report();
  } finally {
    archive.close();
  }
}
