import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progressMode } from '../src/cli/progress-display.js';
import { tempDir } from './support/archive.js';
import { runCli } from './support/cli.js';
import { html, routes, startServer, type TestServer } from './support/test-server.js';

// A terminal that reports 0 columns would get a live line 0 wide (nothing at all): it gets the plain lines instead.
let server: TestServer;
const tmp = tempDir();

beforeAll(async () => {
  server = await startServer(routes({ '/': html('<a href="/broken">broken</a>'), '/broken': { status: 500, body: 'no' } }));
});

afterAll(async () => {
  await server?.close();
  tmp.cleanup();
});

/** A stream that says it is a terminal, as process.stderr does, with the width it reports. */
function terminal(columns: number): Writable & { isTTY: true; columns: number; written: string[] } {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { isTTY: true as const, columns, written });
}

describe('progress on a terminal of 0 columns', () => {
  it('is shown as plain lines, not as a live line', () => {
    expect(progressMode(false, true, terminal(0))).toBe('plain');
    expect(progressMode(false, true, terminal(80))).toBe('live');
    expect(progressMode(true, true, terminal(0))).toBe('none');
  });

  it('a crawl draws nothing on it: what would go above the live line goes to stderr as plain lines', async () => {
    const stream = terminal(0);
    const result = await runCli(['crawl', server.url, '--db', tmp.path('zero.sqlite'), '--ignore-robots', '--max-tries', '1'], {
      statusStream: stream,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(stream.written).toEqual([]);
    expect(result.stderr).toMatch(new RegExp(`${server.url}broken`));
  });

  it('a terminal that reports its width still gets the live line', async () => {
    const stream = terminal(120);
    const result = await runCli(['crawl', server.url, '--db', tmp.path('wide.sqlite'), '--ignore-robots', '--max-tries', '1'], {
      statusStream: stream,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(stream.written.join('')).toMatch(new RegExp(`${server.url}broken`));
  });
});
