import type { GivenOptions } from './crawl-flags.js';
import { EXIT_OK, type CliIo } from './io.js';
import { frontierStatus, frontierTarget, initFrontier, type FrontierCounts } from '../library/frontier.js';
import { checkPatterns } from '../library/options.js';

export interface InitRequest {
  connection: string | undefined;
  roots: string[];
  given: GivenOptions;
  quiet: boolean;
}

/** `crawlite frontier init`: the schema, the crawl's roots and options, the roots queued. */
export async function initFrontierCommand(request: InitRequest, io: CliIo): Promise<number> {
  // Checked here first so a bad pattern is named as typed: --exclude, not exclude.
  checkPatterns(request.given.exclude ?? [], '--exclude');
  checkPatterns(request.given.include ?? [], '--include');
  const { queued } = await initFrontier({
    ...request.given,
    roots: request.roots,
    ...(request.connection ? { connection: request.connection } : {}),
  });
  if (!request.quiet)
    io.stderr(
      `frontier ready at ${frontierTarget(request.connection ? { connection: request.connection } : {})}: ${queued} root URL${queued === 1 ? '' : 's'} queued; start workers with crawlite worker <conn> --db shard.sqlite\n`,
    );
  return EXIT_OK;
}

/** `crawlite frontier status`: counts by state, per origin (those with the most work left first), and the workers alive. */
export async function frontierStatusCommand(
  connection: string | undefined,
  shown: { hosts: number; json: boolean },
  io: CliIo,
): Promise<number> {
  const status = await frontierStatus(connection ? { connection } : {});
  if (shown.json) {
    io.stdout(`${JSON.stringify(status, null, 2)}\n`);
    return EXIT_OK;
  }
  const line = (counts: FrontierCounts) =>
    Object.entries(counts)
      .map(([state, n]) => `${state} ${n}`)
      .join(', ');
  const left = (counts: FrontierCounts) => counts.queued + counts.leased;
  const origins = [...status.origins].sort(
    (a, b) => left(b.counts) - left(a.counts) || (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0),
  );
  const listed = shown.hosts === 0 ? origins : origins.slice(0, shown.hosts);
  io.stdout(`${line(status.total)}\n`);
  for (const origin of listed) io.stdout(`  ${origin.origin}: ${line(origin.counts)}\n`);
  const more = origins.length - listed.length;
  if (more > 0) io.stdout(`  ... and ${more} more origin${more === 1 ? '' : 's'} (--hosts 0 lists every one)\n`);
  io.stdout(`workers seen in the last minute: ${status.workers.length}\n`);
  for (const worker of status.workers) io.stdout(`  ${worker.name} (last seen ${worker.secondsAgo} s ago, ${worker.leased} leased)\n`);
  return EXIT_OK;
}
