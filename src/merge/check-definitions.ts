import { CrawliteError } from '../crawlite-error.js';
import { checkCrawlOptions } from '../pipeline/validate-crawl-options.js';
import type { CrawlOptions } from '../pipeline/option-definitions.js';
import { resolveRoots } from '../run/resolve-roots.js';
import type { ShardDefinition } from '../storage/archive/index.js';
import { ShardDefinitionError, ShardRootsDifferError } from './merge-errors.js';

/** A shard's roots and options once checked as `crawl` checks its own. */
export interface CheckedDefinition {
  path: string;
  /** The stored roots, each resolved as a crawl resolves it; absent in an archive that holds no crawl (an import). */
  roots?: string[];
  /** The sites (origins) of the roots, sorted. */
  origins?: string[];
  options?: Partial<CrawlOptions>;
  workerShard: boolean;
}

const why = (error: unknown) => (error instanceof CrawliteError ? error.message : String(error));

/** Checks one shard's stored roots and options as `crawl` checks its roots and flags: the merged archive is resumed with them. */
export function checkDefinition(path: string, definition: ShardDefinition): CheckedDefinition {
  const checked: CheckedDefinition = { path, workerShard: definition.workerShard };
  if (definition.roots !== undefined) {
    const { roots } = definition;
    if (!Array.isArray(roots) || roots.length === 0 || !roots.every((root) => typeof root === 'string')) {
      throw new ShardDefinitionError(path, 'its stored roots are not a list of URLs');
    }
    try {
      const resolved = resolveRoots(roots);
      checked.roots = resolved.map((root) => root.url);
      checked.origins = [...new Set(resolved.map((root) => root.origin))].sort();
    } catch (error) {
      throw new ShardDefinitionError(path, `its stored roots are not valid: ${why(error)}`, { cause: error });
    }
  }
  if (definition.options !== undefined) {
    const { options } = definition;
    if (typeof options !== 'object' || options === null || Array.isArray(options))
      throw new ShardDefinitionError(path, 'its stored crawl options are not an object');
    try {
      checked.options = checkCrawlOptions(options as Partial<CrawlOptions>);
    } catch (error) {
      throw new ShardDefinitionError(path, `its stored crawl options do not validate: ${why(error)}`, { cause: error });
    }
  }
  return checked;
}

/** JSON with keys sorted, so two option objects compare by content. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );

const list = (items: string[]) => items.join(', ');

/**
 * Shards merged are one crawl (or crawls of one site): the roots of each are on the same sites as the
 * others' and as the output's, and worker shards of a shared frontier, which all store the frontier's
 * roots and options, agree on both. A shard that does not is refused: merged, its roots would be crawled
 * by the next resume.
 */
export function checkSameCrawl(shards: CheckedDefinition[], output?: { path: string; roots?: string[] }): void {
  let reference: { path: string; origins: string[] } | undefined;
  if (output?.roots) {
    try {
      reference = { path: output.path, origins: [...new Set(resolveRoots(output.roots).map((root) => root.origin))].sort() };
    } catch {
      // An output whose own roots do not resolve is the user's own archive: its resume says so; shards are compared with each other.
    }
  }
  for (const shard of shards) {
    if (!shard.origins) continue;
    reference ??= { path: shard.path, origins: shard.origins };
    if (canonical(shard.origins) !== canonical(reference.origins)) {
      throw new ShardRootsDifferError(
        shard.path,
        `its roots are on ${list(shard.origins)}, those of ${reference.path} on ${list(reference.origins)}`,
      );
    }
  }
  const workers = shards.filter((shard) => shard.workerShard);
  const first = workers[0];
  for (const shard of workers.slice(1)) {
    if (canonical([...(shard.roots ?? [])].sort()) !== canonical([...(first!.roots ?? [])].sort())) {
      throw new ShardRootsDifferError(
        shard.path,
        `a worker's shard with other roots (${list(shard.roots ?? [])}) than ${first!.path} (${list(first!.roots ?? [])}), so not of the same shared crawl`,
      );
    }
    if (canonical(shard.options ?? {}) !== canonical(first!.options ?? {})) {
      throw new ShardRootsDifferError(
        shard.path,
        `a worker's shard with other crawl options than ${first!.path}, so not of the same shared crawl`,
      );
    }
  }
}
