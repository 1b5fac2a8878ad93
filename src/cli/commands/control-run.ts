import { checkControl, controlCrawl, controlStatus, isFrontier, type ControlRequest, type ControlStatus } from '../../library/control.js';
import { CRAWL_OPTION_DEFINITIONS, type NameOption } from '../../library/options.js';
import { CrawliteError } from '../../crawlite-error.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';
import { UsageError } from '../usage-error.js';

/** A request the crawl could never take (a value out of range, a bad regular expression): nothing is written. */
export const EXIT_BAD_REQUEST = 2;

export interface ControlArgs {
  db: string;
  action: 'pause' | 'resume' | 'stop' | 'set' | 'exclude' | 'include' | 'status';
  pattern: string | undefined;
  settings: { concurrency?: number; perHost?: number; delayMs?: number; minFreeDisk?: number };
  wait: boolean;
  waitMs: number;
  json: boolean;
}

const asFlag: NameOption = (key) => `--${CRAWL_OPTION_DEFINITIONS[key].flag}`;

function requestOf(args: ControlArgs): ControlRequest {
  switch (args.action) {
    case 'set': {
      const settings = Object.fromEntries(Object.entries(args.settings).filter(([, value]) => value !== undefined));
      if (Object.keys(settings).length === 0)
        throw new UsageError('control set needs --concurrency, --per-host, --delay or --min-free-disk');
      return { command: 'set', settings };
    }
    case 'exclude':
    case 'include':
      if (args.pattern === undefined) throw new UsageError(`control ${args.action} needs a PATTERN (a regular expression)`);
      return { command: args.action, pattern: args.pattern };
    default:
      if (args.pattern !== undefined) throw new UsageError(`control ${args.action} takes no pattern`);
      return { command: args.action as 'pause' | 'resume' | 'stop' };
  }
}

/** `crawlite control`: appends a checked request for the crawl on the archive and says what came of it, or shows its status. */
export async function runControl(args: ControlArgs, io: CliIo): Promise<number> {
  const workers = isFrontier(args.db);
  if (args.action === 'status' && workers)
    throw new UsageError(`control status reads an archive; for a frontier: crawlite frontier status ${args.db}`);
  if (args.action === 'status') {
    const status = controlStatus(args.db);
    io.stdout(args.json ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(args.db, status));
    return EXIT_OK;
  }
  const request = requestOf(args);
  try {
    checkControl(request, asFlag);
  } catch (error) {
    if (error instanceof CrawliteError && error.code === 'INVALID_OPTION') {
      io.stderr(`crawlite: ${error.message}; nothing was asked of the crawl\n`);
      return EXIT_BAD_REQUEST;
    }
    throw error;
  }
  if (!Number.isFinite(args.waitMs) || args.waitMs < 0) throw new UsageError(`--wait-ms must be 0 or more, not ${args.waitMs}`);
  const answer = await controlCrawl({ db: args.db, request, wait: args.wait, waitMs: args.waitMs, name: asFlag });
  switch (answer.state) {
    case 'applied':
      io.stdout(`${answer.outcome}\n`);
      return answer.outcome?.startsWith('refused') ? EXIT_FAILURE : EXIT_OK;
    case 'sent':
      io.stdout(`asked (request ${answer.id}); crawlite control ${args.db} status shows its outcome\n`);
      return EXIT_OK;
    case 'no-crawl':
      if (request.command === 'stop') {
        io.stdout(`no ${workers ? 'worker' : 'crawl'} is running on ${args.db}: nothing to stop\n`);
        return EXIT_OK;
      }
      if (workers) {
        io.stdout(
          `no worker is running on ${args.db}: the request applies when a worker next runs (crawlite worker ${args.db} --db shard.sqlite)\n`,
        );
        return EXIT_OK;
      }
      io.stdout(`no crawl is running on ${args.db}: the request applies when it next runs (crawlite resume ${args.db})\n`);
      return EXIT_OK;
    case 'timeout':
      io.stderr(
        `crawlite: the crawl had not applied the request after ${args.waitMs} ms; it stays asked, and applies when the crawl gets to it\n`,
      );
      return EXIT_FAILURE;
  }
}

function formatStatus(db: string, status: ControlStatus): string {
  const lines: string[] = [];
  const { live } = status;
  if (status.running && live) {
    const paused = live.state === 'paused' ? ` (by ${live.pausedBy})` : '';
    lines.push(`${db}: ${live.state}${paused}, pid ${live.pid}, since ${live.startedAt}`);
    lines.push(
      `  ${live.inFlight} in flight, concurrency ${live.concurrency}, per-host ${live.perHost}, delay ${live.delayMs === null ? "robots.txt's Crawl-delay" : `${live.delayMs} ms`}`,
    );
  } else {
    lines.push(
      `${db}: no crawl is running${live ? ` (the last ${live.state === 'ended' ? 'ended' : 'was last seen'} at ${live.updatedAt})` : ''}`,
    );
  }
  const { settings } = status;
  const stored = [
    settings.pausedBy ? `paused by ${settings.pausedBy}` : undefined,
    settings.concurrency !== undefined ? `concurrency ${settings.concurrency}` : undefined,
    settings.perHost !== undefined ? `per-host ${settings.perHost}` : undefined,
    settings.delayMs !== undefined ? `delay ${settings.delayMs} ms` : undefined,
    settings.minFreeDisk !== undefined ? `min-free-disk ${settings.minFreeDisk}` : undefined,
  ].filter(Boolean);
  lines.push(`  controls kept for the next run: ${stored.length ? stored.join(', ') : 'none'}`);
  const { urls } = status;
  lines.push(`  URLs: ${urls.queued} queued, ${urls.fetching} fetching, ${urls.done} done, ${urls.failed} failed, ${urls.skipped} skipped`);
  lines.push(`  live exclusions: ${status.exclusions.length ? status.exclusions.map((row) => row.pattern).join('  ') : 'none'}`);
  if (status.storedExclude.length) lines.push(`  --exclude: ${status.storedExclude.join('  ')}`);
  if (status.requests.length) lines.push('  latest requests:');
  for (const row of status.requests) {
    const asked = `${row.command}${row.argument ? ` ${row.argument}` : ''}`;
    lines.push(`    ${row.id} ${row.requestedAt} ${row.requestedBy}: ${asked} -> ${row.appliedAt ? row.outcome : 'waiting'}`);
  }
  return `${lines.join('\n')}\n`;
}
