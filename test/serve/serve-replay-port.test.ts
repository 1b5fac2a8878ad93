import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureTimestamp, replayPath } from '../../src/serve/replay-url.js';
import { readArchive, tempDir } from '../support/archive.js';
import { execCli } from '../support/cli.js';
import { expectOneLine } from '../support/one-line-error.js';
import { freePort, get, spawnServe } from '../support/serve.js';
import { html, routes, serverPool } from '../support/test-server.js';
import { exitWithin, waitFor } from '../support/wait.js';

// `crawlite serve --replay-port N`: the replay origin on a port chosen ahead
// (a firewall, a container or a reverse proxy needs to know it), with the
// same validation as --port, and Host checking on that port.

const tmp = tempDir();
const servers = serverPool();
let archive: string;
let page: string;
let held: Server;
let heldPort: number;

beforeAll(async () => {
  const site = await servers.serve(routes({ '/': html('<a href="/a">a</a>', 'home'), '/a': html('the page called a', 'page a') }));
  archive = tmp.path('site.sqlite');
  expect((await execCli(['crawl', site.url, '--db', archive, '-q'])).code).toBe(0);
  const url = `${site.url}a`;
  page = replayPath(
    url,
    captureTimestamp(readArchive<{ fetched_at: string }>(archive, 'SELECT fetched_at FROM pages WHERE url = ?', url)[0]!.fetched_at),
  );
  held = createServer();
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  heldPort = (held.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => held.close(resolve));
  await servers.closeAll();
  tmp.cleanup();
});

describe('crawlite serve --replay-port', () => {
  it('puts the replay origin on the port given: the second line names it, replay answers there, and Host names it', async () => {
    const replayPort = await freePort();
    const { child, url } = await spawnServe([archive, '--port', '0', '--replay-port', String(replayPort)]);
    try {
      await waitFor(
        'the second line',
        () => child.output().stdout.split('\n').length > 2,
        5_000,
        () => child.output().stdout,
      );
      const second = child.output().stdout.split('\n')[1]!;
      expect(second).toMatch(new RegExp(`^replay origin: http://127\\.0\\.0\\.1:${replayPort}/ `));
      const origin = `http://127.0.0.1:${replayPort}`;
      const replayed = await get(origin, page);
      expect(replayed.status).toBe(200);
      expect(replayed.body).toContain('the page called a');
      expect((await get(origin, page, { host: `localhost:${replayPort}` })).status).toBe(200);
      // The allowed hosts are those of the replay port: not the UI's, not another host's.
      const uiPort = new URL(url).port;
      expect((await get(origin, page, { host: `127.0.0.1:${uiPort}` })).status).toBe(421);
      expect((await get(origin, page, { host: `evil.example:${replayPort}` })).status).toBe(421);
      child.kill('SIGINT');
      expect((await exitWithin(child.exited, 10_000))?.code).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses a port in use with one line, exit 1', async () => {
    expectOneLine(
      await execCli(['serve', archive, '--port', '0', '--replay-port', String(heldPort)]),
      new RegExp(`port ${heldPort} is in use; pick another with --replay-port`),
    );
  });

  it('refuses what --port refuses, and the UI port itself, with one line', async () => {
    for (const bad of ['70000', '-1', '1.5', 'x']) {
      expectOneLine(
        await execCli(['serve', archive, '--port', '0', '--replay-port', bad]),
        /--replay-port must be a whole number from 0 to 65535/,
      );
    }
    expectOneLine(await execCli(['serve', archive, '--port', '8123', '--replay-port', '8123']), /--replay-port must differ from --port/);
  });
});
