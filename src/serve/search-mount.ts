import type { Database } from 'better-sqlite3';

// Where the UI's search comes from: full-text search over the archive when this
// build has it, else undefined and the search page says so.

export interface SearchHit {
  url: string;
  title: string | null;
  snippet: string;
  rank: number;
  fetchedAt: string;
  status: number;
}

export type SearchArchive = (
  db: Database,
  query: string,
  options: { limit: number; offset?: number; markStart?: string; markEnd?: string },
) => SearchHit[];

export const searchArchive: SearchArchive | undefined = undefined;
