import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, noticeIfNoBrowser } from '../support/browser.js';
import { isRunning, processTree } from '../support/process-tree.js';
import { serverPool, type TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

noticeIfNoBrowser('killed-crawler.test.ts');

const SCRIPT = fileURLToPath(new URL('../fixtures/render-and-hold.mjs', import.meta.url));

// Chromium starts slowly on a loaded machine: room beyond the default minute.
(HAS_CHROMIUM ? describe : describe.skip)('a crawler killed with SIGKILL mid-render', { timeout: 120_000 }, () => {
  const pool = serverPool();
  let site: TestServer;

  beforeAll(async () => {
    // Long polls that never answer: the page is held mid-load when the kill lands.
    site = await pool.serve(() => undefined);
  });
  afterAll(() => pool.closeAll());

  it('leaves no Chromium process behind', async () => {
    const child = spawn(process.execPath, [SCRIPT, site.url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    let tree: number[] = [];
    try {
      await waitFor(
        'the child to print its Chromium PID',
        () => /chromium \d+/.test(out),
        30_000,
        () => `stdout: ${out} stderr: ${err}`,
      );
      const pid = Number(/chromium (\d+)/.exec(out)![1]);
      await waitFor('the held page to ask the site', () => site.hitCount('/poll') + site.hitCount('/poll-image') > 0, 20_000);
      tree = processTree(pid);
      expect(tree.length).toBeGreaterThan(2);
      child.kill('SIGKILL');
      const killedAt = Date.now();
      await waitFor(
        "every process of the killed crawler's Chromium to be gone",
        () => tree.every((each) => !isRunning(each)),
        15_000,
        () => `still running: ${tree.filter(isRunning).join(' ')}`,
      );
      console.log(`${tree.length} Chromium processes gone ${Date.now() - killedAt} ms after the kill`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const each of tree) if (isRunning(each)) process.kill(each, 'SIGKILL');
    }
  });
});
