import type { FetchReport, RunKind, RunOutcome, SessionOptions } from '../library/index.js';
import { InvalidOptionError } from '../library/options.js';
import { SESSION_KEYS } from '../library/session-options.js';
import { prepareRun } from '../library/start-run.js';
import { asTyped, type GivenOptions } from './crawl-flags.js';
import { FetchLogFile } from './fetch-log-file.js';
import { formatFetch } from './fetch-log.js';
import { formatNotice } from './format-notice.js';
import { formatQaReport } from './format-qa.js';
import { formatReport } from './format-report.js';
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, type CliIo } from './io.js';
import { rootAnswer } from './root-answers.js';
import { progressMode, ProgressDisplay } from './progress-display.js';
import { SESSION_FLAGS } from './session-flags.js';
import { UsageError } from './usage-error.js';

export type Verbosity = 'quiet' | 'normal' | 'verbose';

export interface CrawlRequest {
  dbPath: string;
  /** `crawl` for crawl and demo (the file may be new). */
  kind: RunKind;
  /** Roots as typed; none but for crawl. */
  roots: string[];
  given: GivenOptions;
  verbosity: Verbosity;
  /** Extra facts to keep in the archive (the demo marks its own). */
  marks?: Record<string, unknown>;
  /** --log FILE: one JSON line per fetch. */
  logFile?: string;
  /** `crawlite recrawl --only-linked`. */
  onlyLinked?: boolean;
  /** Headers, cookies and proxy as given: used, never stored. */
  session?: SessionOptions;
}

/** The library checks every option once; a session flag it refuses is a usage error, as a crawl flag refused while parsing is. */
function prepare(request: CrawlRequest, io: CliIo, onQaProgress: (progress: { done: number; total: number }) => void) {
  try {
    return prepareRun(
      {
        kind: request.kind,
        db: request.dbPath,
        roots: request.roots,
        options: request.given,
        ...(request.session ? { session: request.session } : {}),
        ...(request.onlyLinked ? { onlyLinked: true } : {}),
        defaultUserAgent: `crawlite/${io.version}`,
        owner: io.owner,
        ...(request.marks ? { marks: request.marks } : {}),
        // -q prints no report: a big archive's report is not worth reading for nothing.
        report: request.verbosity !== 'quiet',
        onQaProgress,
      },
      { option: asTyped, session: SESSION_FLAGS },
    );
  } catch (error) {
    if (error instanceof InvalidOptionError && (SESSION_KEYS as readonly string[]).includes(error.option))
      throw new UsageError(error.message);
    throw error;
  }
}

/** Runs a crawl through the library (prepareRun), drawing its progress and printing its notices and report; returns the exit code. */
export async function runCrawl(request: CrawlRequest, io: CliIo): Promise<number> {
  const say = (line: string) => request.verbosity !== 'quiet' && io.stderr(`${line}\n`);
  let qaProgress: ((line: string) => void) | undefined;
  const prepared = prepare(request, io, ({ done, total }) => {
    if (done === 0) qaProgress?.(`qa: replaying ${total} page${total === 1 ? '' : 's'} of ${request.dbPath} in Chromium`);
  });
  const log = request.logFile ? new FetchLogFile(request.logFile) : undefined;

  const mode = progressMode(request.verbosity === 'quiet', io.isTTY, io.statusStream);
  let progress: ProgressDisplay | undefined;
  let unlisten: (() => void) | undefined;
  let result: RunOutcome;
  let complete = false;
  try {
    progress = await ProgressDisplay.create(
      mode,
      io.statusStream && mode === 'live' ? io.statusStream : { write: io.stderr },
      () => run.stateCounts(),
      () => run.inFlight(),
    );
    const shown = progress;
    if (request.verbosity !== 'quiet') qaProgress = (line) => shown.line(line);
    const run = prepared.start();
    let stopping = false;
    let started = false;
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
          if (event.notice.kind === 'paused') shown.paused = event.notice.by === 'disk' ? 'paused (disk)' : 'paused';
          if (event.notice.kind === 'resumed') shown.paused = undefined;
          // A pause is said even with -q: a crawl that waits must say why. Once the status line is live, a notice goes above it.
          if (request.verbosity !== 'quiet' || event.notice.kind === 'paused') {
            const text = formatNotice(event.notice, request.dbPath);
            if (started) shown.line(text);
            else io.stderr(`${text}\n`);
          }
          break;
        case 'started':
          started = true;
          // The notice answers a key the user pressed: shown even with -q, above the live status line, at once.
          unlisten = io.onInterrupt(() => {
            if (!stopping) {
              const inFlight = run.inFlight();
              shown.line(
                `stopping: finishing ${inFlight} request${inFlight === 1 ? '' : 's'} in flight (Ctrl-C again to quit now; resume continues)`,
              );
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
  if (result.qa && request.verbosity !== 'quiet') io.stdout(`${formatQaReport(result.qa)}\n`);
  if (result.endedBy === 'limit')
    say(`stopped at --max-pages ${result.options.maxPages}; crawlite resume ${request.dbPath} --max-pages <more> goes on`);
  if (result.endedBy === 'interrupted') {
    say(`stopped; continue with: crawlite resume ${request.dbPath}`);
    return EXIT_INTERRUPTED;
  }
  if (result.qa?.stopped) {
    say(`qa stopped after ${result.qa.checked} of ${result.qa.total} pages; crawlite qa ${request.dbPath} checks them all`);
    return EXIT_INTERRUPTED;
  }
  // An exhausted frontier is a success only if some root answered with a page; a typo, a 404 or a dead host is not.
  const answers = result.roots.map(rootAnswer);
  const unanswered = answers.filter((root) => root.answer === 'none');
  if (unanswered.length > 0 && unanswered.length === answers.length) {
    for (const root of unanswered) io.stderr(`crawlite: no root could be fetched: ${root.root}: ${root.why}\n`);
    return EXIT_FAILURE;
  }
  for (const root of unanswered) io.stderr(`crawlite: warning: root did not answer with a page: ${root.root}: ${root.why}\n`);
  return EXIT_OK;
}
