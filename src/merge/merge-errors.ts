import { CrawliteError } from '../crawlite-error.js';

/** A shard written by an older crawlite: merging reads the current schema only. */
export class ShardSchemaError extends CrawliteError {
  constructor(path: string, found: number, known: number) {
    super(
      'SHARD_SCHEMA_OLD',
      `${path} is an archive of schema ${found} (this crawlite writes ${known}); migrate it first with crawlite reindex ${path}, then merge`,
    );
  }
}

/** The output named among the shards. */
export class MergeIntoInputError extends CrawliteError {
  constructor(path: string) {
    super('MERGE_INTO_INPUT', `${path} is both a shard to merge and the output (--db); write the merge to another file`);
  }
}
