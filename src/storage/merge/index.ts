// The merge room's door: what the rest of crawlite uses of it (the output archive and its merger, and what a merge reads of its files first).
export type { ArchiveMerger } from './merge-archive.js';
export { inspectShardFile, readMergeOutput, type MergeOutputState } from './merge-inputs.js';
export { MergeOutput } from './merge-output.js';
export type { ShardIdentity } from './merge-progress.js';
export { ShardBodyCheck } from './shard-bodies.js';
export { startShardTableCheck } from './shard-table-check.js';
