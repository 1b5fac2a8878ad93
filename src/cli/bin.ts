#!/usr/bin/env -S node --max-semi-space-size=4
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { stopWorkerThreads } from '../library/stop-threads.js';
import { main } from './main.js';
import { EXIT_INTERRUPTED, streamStdout } from './io.js';

// The one file that touches the process: argv, streams, signals, exit code.

// The #! line caps V8's young generation at 2 MB a half (the default lets it grow to 16): a crawl's
// garbage is short-lived, so scavenges stay cheap, and peak RSS is about 30 MB lower. V8 reads this
// only at start, hence the #! line (env -S) rather than setFlagsFromString; `node bin.js` skips it.

// A crawl's live heap is small (about 20 MB) but by default V8 lets the old generation grow to about
// three times it between full collections, and response buffers promoted with their pages wait for
// those collections too: doubling at most keeps peak RSS about 40 MB lower for about 7 % more CPU.
// Read at each full collection, so setting it after start still applies (parse threads included).
setFlagsFromString('--heap-growing-percent=100');
// undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it twice: at once with its
// baseline compiler, then again with its optimizing one on a background thread, about 250 ms of a
// core at every crawl's start, and a crawl that ends before that compile does waits for it at exit
// (a one-page crawl took 0.75 s instead of 0.55). The baseline code parses as fast for a crawl:
// llhttp was under 1.5 % of the main thread's time either way (5,000 pages, CPU profiles).
setFlagsFromString('--liftoff-only');
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

let interruptHandler: (() => void) | undefined;
let quitNotice: string | undefined;
let interrupts = 0;
/** Quitting at once: nothing more is printed after the notice (a command failing as its threads end says nothing new). */
let quitting = false;
const onSignal = () => {
  interrupts += 1;
  // A second Ctrl-C quits at once; WAL keeps every committed page safe. stderr is synchronous on
  // terminals and pipes, so the notice is out before the exit. Parse and gzip threads end first, each
  // after the response or record in hand (process.exit terminating one inside zlib aborts Node 20).
  if (interrupts > 1 || !interruptHandler) {
    if (quitting) process.exit(EXIT_INTERRUPTED);
    quitting = true;
    if (quitNotice) process.stderr.write(quitNotice);
    void stopWorkerThreads().finally(() => process.exit(EXIT_INTERRUPTED));
    return;
  }
  interruptHandler();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const exitCode = await main(process.argv.slice(2), {
  ...streamStdout(process.stdout),
  stderr: (text) => quitting || process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
  statusStream: process.stderr,
  onInterrupt(handler, notice) {
    interruptHandler = handler;
    quitNotice = notice;
    return () => {
      if (interruptHandler === handler) {
        interruptHandler = undefined;
        quitNotice = undefined;
      }
    };
  },
  owner: { pid: process.pid, host: hostname() },
  version,
  protocolStreams: () => ({ input: process.stdin, output: process.stdout }),
});
process.exitCode = exitCode;
