// The writer room's door: what the rest of crawlite uses of it.
export * from './import-sink.js';
export * from './payload-digest.js';
export * from './reindex-text.js';
export * from './convert-page-text.js';
export * from './copy-captures.js';
export * from './qa-writer.js';
export * from './listed-pages.js';
