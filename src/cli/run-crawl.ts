import type { FetchReport } from '../pipeline/crawl-item.js';
import { compilePatterns } from '../pipeline/compile-patterns.js';
import { startCrawlRun, type RunResult } from '../run/crawl-run.js';
import { checkRunRequest } from '../run/run-request.js';
import type { GivenOptions } from './crawl-flags.js';
import { FetchLogFile } from './fetch-log-file.js';
import { formatFetch } from './fetch-log.js';
import { formatNotice } from './format-notice.js';
import { formatReport } from './format-report.js';
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, type CliIo } from './io.js';
import { rootAnswer } from './root-answers.js';
import { progressMode, ProgressDisplay } from './progress-display.js';
import type { GivenSession } from './session-flags.js';

export { NoArchiveFileError } from '../run/run-request.js';

export type Verbosity = 'quiet' | 'normal' | 'verbose';

export interface CrawlRequest {
  dbPath: string;
  /** `create` for crawl and demo (the file may be new), `existing` for resume. */
  mode: 'create' | 'existing';
  /** Roots as typed; none for resume. */
  roots: string[];
  given: GivenOptions;
  verbosity: Verbosity;
  /** Extra facts to keep in the archive (the demo marks its own). */
  marks?: Record<string, unknown>;
  /** --log FILE: one JSON line per fetch. */
  logFile?: string;
  /** `crawlite retry`: failed URLs are queued again with fresh tries. */
  retryFailed?: boolean;
  /** `crawlite recrawl`: the next crawl of a finished archive. */
  recrawl?: { onlyLinked: boolean };
  /** Headers, cookies and proxy: used, never stored. */
  session?: GivenSession;
}

/** Runs a crawl through the run layer, drawing its progress and printing its notices and report; returns the exit code. */
export async function runCrawl(request: CrawlRequest, io: CliIo): Promise<number> {
  const say = (line: string) => request.verbosity !== 'quiet' && io.stderr(`${line}\n`);
  const checked = checkRunRequest({
    dbPath: request.dbPath,
    mode: request.mode,
    roots: request.roots,
    given: request.given,
    userAgent: `crawlite/${io.version}`,
    owner: io.owner,
    ...(request.marks ? { marks: request.marks } : {}),
    ...(request.retryFailed ? { retryFailed: true } : {}),
    ...(request.recrawl ? { recrawl: request.recrawl } : {}),
    ...(request.session ? { session: request.session } : {}),
    // -q prints no report: a big archive's report is not worth reading for nothing.
    report: request.verbosity !== 'quiet',
  });
  compilePatterns(request.given.exclude ?? [], '--exclude');
  compilePatterns(request.given.include ?? [], '--include');
  const log = request.logFile ? new FetchLogFile(request.logFile) : undefined;

  const mode = progressMode(request.verbosity === 'quiet', io.isTTY, io.statusStream);
  let progress: ProgressDisplay | undefined;
  let unlisten: (() => void) | undefined;
  let result: RunResult;
  let complete = false;
  try {
    progress = await ProgressDisplay.create(mode, io.statusStream && mode === 'live' ? io.statusStream : { write: io.stderr }, () => run.stateCounts(), () => run.inFlight());
    const shown = progress;
    const run = startCrawlRun(checked);
    let stopping = false;
    const onFetch = (fetch: FetchReport) => {
      shown.count(fetch);
      log?.write(fetch);
      if (request.verbosity === 'verbose' || (request.verbosity === 'normal' && fetch.state === 'failed')) shown.line(formatFetch(fetch));
    };
    run.events.subscribe((event) => {
      switch (event.type) {
        case 'notice':
          // A resume with nothing to fetch says so instead of printing a report of zero pages.
          if (event.notice.kind === 'complete') complete = true;
          say(formatNotice(event.notice, request.dbPath));
          break;
        case 'started':
          // The notice answers a key the user pressed: shown even with -q, above the live status line, at once.
          unlisten = io.onInterrupt(() => {
            if (!stopping) {
              const inFlight = run.inFlight();
              shown.line(`stopping: finishing ${inFlight} request${inFlight === 1 ? '' : 's'} in flight (Ctrl-C again to quit now; resume continues)`);
            }
            stopping = true;
            run.stop();
          }, `crawlite: stopped at once; continue with: crawlite resume ${request.dbPath}\n`);
          shown.start();
          break;
        case 'progress':
          break;
        default:
          onFetch(event.report);
      }
    });
    result = await run.done;
  } finally {
    progress?.stop();
    unlisten?.();
    log?.close();
  }
  if (result.report && !complete) io.stdout(`${formatReport(request.dbPath, result.report, 'run')}\n`);
  if (result.endedBy === 'limit') say(`stopped at --max-pages ${result.options.maxPages}; crawlite resume ${request.dbPath} --max-pages <more> goes on`);
  if (result.endedBy === 'interrupted') {
    say(`stopped; continue with: crawlite resume ${request.dbPath}`);
    return EXIT_INTERRUPTED;
  }
  // An exhausted frontier is a success only if some root answered with a page; a typo, a 404 or a dead host is not.
  const answers = result.rootStates.map(rootAnswer);
  const unanswered = answers.filter((root) => root.answer === 'none');
  if (unanswered.length > 0 && unanswered.length === answers.length) {
    for (const root of unanswered) io.stderr(`crawlite: no root could be fetched: ${root.root}: ${root.why}\n`);
    return EXIT_FAILURE;
  }
  for (const root of unanswered) io.stderr(`crawlite: warning: root did not answer with a page: ${root.root}: ${root.why}\n`);
  return EXIT_OK;
}
