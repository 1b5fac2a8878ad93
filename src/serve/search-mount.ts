import type { Database } from 'better-sqlite3';
import type { SearchHit, SearchOptions } from '../storage/search-archive.js';

// Where the UI's search comes from: full-text search over the archive (src/storage/search-archive.ts).
// Kept behind this one import so the UI's pages depend on the search contract only.

export type { SearchHit };
export type SearchArchive = (db: Database, query: string, options: SearchOptions) => SearchHit[];

export { searchArchive } from '../storage/search-archive.js';
