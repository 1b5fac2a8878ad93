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

/** A shard whose tables, indexes, views or triggers are not crawlite's own: its SQL is not run. */
export class ShardAlteredError extends CrawliteError {
  constructor(path: string, difference: string) {
    super('SHARD_ALTERED', `${path} is not an archive as crawlite writes it: ${difference}; refusing to merge it`);
  }
}

/** A shard body whose size or hash does not match its data. */
export class ShardBodyError extends CrawliteError {
  constructor(path: string, problem: string) {
    super('SHARD_BODY_MISMATCH', `${path}: ${problem}; refusing to merge it`);
  }
}

/** A shard whose stored roots or options a crawl would not take: a resume of the merged archive would crawl with them. */
export class ShardDefinitionError extends CrawliteError {
  constructor(path: string, problem: string, options?: { cause?: unknown }) {
    super(
      'SHARD_DEFINITION_INVALID',
      `${path}: ${problem}; a resume of the merged archive would crawl with them, so it is refused`,
      options,
    );
  }
}

/** A shard that is not of the same crawl (or site) as the other shards or the output. */
export class ShardRootsDifferError extends CrawliteError {
  constructor(path: string, problem: string) {
    super('SHARD_NOT_OF_THIS_CRAWL', `${path}: ${problem}; refusing to merge it`);
  }
}

/** A shard that changed between its checks and its merge. */
export class ShardChangedError extends CrawliteError {
  constructor(path: string) {
    super('SHARD_CHANGED', `${path} changed while it was being merged (something wrote to it without its lock); run the merge again`);
  }
}
