// Runs site-server.mjs as a child process and talks to it over IPC: the Node server the latency rows
// use (nginx has no stock per-response delay). The handle has the same shape as nginx.mjs's.
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onCleanup, procSample } from './measure.mjs';

const SERVER = join(dirname(fileURLToPath(import.meta.url)), 'site-server.mjs');

export async function startSiteChild({ pages, seed, latencyMs }) {
  const args = ['--pages', String(pages), '--seed', String(seed), '--latency', String(latencyMs)];
  const child = fork(SERVER, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const alive = () => child.exitCode === null && child.signalCode === null;
  const unregister = onCleanup(() => {
    if (alive()) child.kill('SIGKILL');
  });
  const ready = await new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error('the site server did not start within 10 s')), 10_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      if (message?.type === 'ready') resolvePromise(message);
      else reject(new Error(`unexpected message from the site server: ${JSON.stringify(message)}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the site server exited (${code})`));
    });
  });

  const call = (type) =>
    new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        child.off('message', onMessage);
        reject(new Error(`the site server did not answer ${type} within 10 s`));
      }, 10_000);
      const onMessage = (message) => {
        if (message?.type !== 'stats') return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolvePromise(message.stats);
      };
      child.on('message', onMessage);
      child.send({ type });
    });

  return {
    kind: 'node',
    origin: `http://127.0.0.1:${ready.port}`,
    port: ready.port,
    pid: ready.pid,
    reset: () => call('reset'),
    stats: () => call('stats'),
    cpuS: () => procSample(child.pid)?.cpuS ?? 0,
    async stop() {
      unregister();
      if (!alive()) return;
      const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise));
      if (child.connected)
        child.disconnect(); // it exits when its IPC channel closes
      else child.kill('SIGTERM');
      await exited;
    },
  };
}
