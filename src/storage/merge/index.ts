// The merge room's door: what the rest of crawlite uses of it (the merger, and what a merge reads of its files first).
export { ArchiveMerger } from './merge-archive.js';
export { inspectShardFile, readMergeOutput, type MergeOutputState } from './merge-inputs.js';
export { hasMergeProgress, readShardProgress, writeShardProgress, type ShardIdentity } from './merge-progress.js';
export { ShardBodyCheck } from './shard-bodies.js';
export { startShardTableCheck } from './shard-table-check.js';
