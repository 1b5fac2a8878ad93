import { expect, it } from 'vitest';
import { Outage, TELL_AGAIN_AFTER_MS } from '../src/run/outage.js';

// A full PostgreSQL server lets a worker's round through on the connection it holds, then refuses the next:
// the worker must not tell each such flap as a new outage. The clock is given, and the signal is aborted so
// that no wait sleeps.

it('tells an outage once, not again when it flaps within a minute, and again after', async () => {
  let now = 1_000_000;
  const told: unknown[] = [];
  const stopped = AbortSignal.abort();
  const outage = new Outage(
    stopped,
    (error) => told.push(error),
    () => now,
  );

  await outage.wait('full');
  await outage.wait('still full');
  expect(told).toEqual(['full']);

  // A round went through, then the server refused again a second later: the same trouble, not told again.
  outage.over();
  now += 1_000;
  await outage.wait('full again');
  expect(told).toEqual(['full']);

  // Well after the last one told, an outage is news.
  outage.over();
  now += TELL_AGAIN_AFTER_MS;
  await outage.wait('down');
  expect(told).toEqual(['full', 'down']);
});
