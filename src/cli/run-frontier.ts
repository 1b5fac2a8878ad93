import type { GivenOptions } from './crawl-flags.js';
import { EXIT_OK, type CliIo } from './io.js';
import { compilePatterns } from '../pipeline/compile-patterns.js';
import { resolveRoots } from '../run/resolve-roots.js';
import { sitemapSeeds } from '../run/root-seeds.js';
import { connectFrontier } from '../pg/pg-connect.js';
import { initFrontier, type FrontierSeed } from '../pg/frontier-store.js';
import { frontierStatus } from '../pg/frontier-status.js';
import { describeTarget } from '../pg/pg-errors.js';

export interface InitRequest {
  connection: string | undefined;
  roots: string[];
  given: GivenOptions;
  quiet: boolean;
}

/** `crawlite frontier init`: the schema, the crawl's roots and options, the roots queued. */
export async function initFrontierCommand(request: InitRequest, io: CliIo): Promise<number> {
  const roots = resolveRoots(request.roots);
  compilePatterns(request.given.exclude ?? [], '--exclude');
  compilePatterns(request.given.include ?? [], '--include');
  const seeds: FrontierSeed[] = roots.map((root) => ({ url: root.url, key: root.key, origin: root.origin, kind: 'page' }));
  if (request.given.sitemaps) seeds.push(...sitemapSeeds(roots).map((seed) => ({ url: seed.url, key: seed.key, origin: seed.origin, kind: 'sitemap' as const })));
  const pool = await connectFrontier(request.connection, 1);
  try {
    const queued = await initFrontier(pool, request.connection, { roots: roots.map((root) => root.url), options: request.given }, seeds);
    if (!request.quiet) io.stderr(`frontier ready at ${describeTarget(request.connection)}: ${queued} root URL${queued === 1 ? '' : 's'} queued; start workers with crawlite worker <conn> --db shard.sqlite\n`);
    return EXIT_OK;
  } finally {
    await pool.end();
  }
}

/** `crawlite frontier status`: counts by state, per origin, and the workers alive. */
export async function frontierStatusCommand(connection: string | undefined, io: CliIo): Promise<number> {
  const pool = await connectFrontier(connection, 1);
  try {
    const status = await frontierStatus(pool, connection);
    const states = ['queued', 'leased', 'done', 'failed', 'skipped'] as const;
    const line = (counts: Record<string, number>) => states.map((state) => `${state} ${counts[state] ?? 0}`).join(', ');
    io.stdout(`${line(status.total)}\n`);
    for (const origin of status.origins) io.stdout(`  ${origin.origin}: ${line(origin.counts)}\n`);
    io.stdout(`workers seen in the last minute: ${status.workers.length}\n`);
    for (const worker of status.workers) io.stdout(`  ${worker.name} (last seen ${worker.secondsAgo} s ago, ${worker.leased} leased)\n`);
    return EXIT_OK;
  } finally {
    await pool.end();
  }
}
