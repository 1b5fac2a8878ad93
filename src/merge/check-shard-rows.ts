import { setTimeout as sleep } from 'node:timers/promises';
import { startShardTableCheck } from '../storage/merge/index.js';
import { ShardAlteredError } from './merge-errors.js';

/** How often a running check looks at Ctrl-C. */
const POLL_MS = 25;

/**
 * Refuses a shard whose rows the merge could not write or would drop (ShardAlteredError), before anything
 * is written. Resolves false when stopped: the check runs in a child process, killed at once.
 */
export async function checkShardRows(path: string, stopped?: () => boolean): Promise<boolean> {
  const check = startShardTableCheck(path);
  const poll = setInterval(() => {
    if (stopped?.()) check.stop();
  }, POLL_MS);
  try {
    const outcome = await check.result;
    if (outcome === 'stopped') return false;
    if (outcome) throw new ShardAlteredError(path, outcome);
    return true;
  } catch (error) {
    // Ctrl-C on a terminal reaches the check's process too, maybe before this one hears it.
    await sleep(POLL_MS * 4);
    if (stopped?.()) return false;
    throw error;
  } finally {
    clearInterval(poll);
  }
}
