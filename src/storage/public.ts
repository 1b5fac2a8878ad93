// The storage room's door for the package's public API: what a library user reads and catches, declared
// without the SQLite driver's types (a devDependency, absent from a user's install). The room doors
// (archive/, reader/, ...) also carry the connections the rest of crawlite passes around.
export * from './archive/archive-errors.js';
export * from './reader/archive-reader.js';
export * from './reader/reader-types.js';
export type { LockOwner } from './archive/archive-lock.js';
export { compactArchive, type CompactReport } from './archive/compact-archive.js';
