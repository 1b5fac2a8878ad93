import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { ShardBodyCheck } from '../storage/merge/index.js';
import { ShardBodyError } from './merge-errors.js';

/** Time spent hashing between two looks at Ctrl-C: short enough that an interruption is heard at once. */
const STEP_MS = 50;

export interface BodyCheckRequest {
  pauseMs?: number;
  stopped?: () => boolean;
  onProgress?: (checked: number, total: number) => void;
}

/**
 * Hashes every body of a shard and compares it with its row, before the merge writes anything: a body that
 * lies about its hash or its size refuses the shard (ShardBodyError). Resolves false when stopped part-way.
 */
export async function verifyShardBodies(path: string, request: BodyCheckRequest): Promise<boolean> {
  const check = ShardBodyCheck.open(path);
  try {
    for (;;) {
      // Slowed down (a test), one body a step.
      const step = check.step(request.pauseMs ? 0 : STEP_MS);
      if (step.problem) throw new ShardBodyError(path, step.problem);
      request.onProgress?.(step.checked, check.total);
      if (step.done) return true;
      await (request.pauseMs ? sleep(request.pauseMs) : nextTurn());
      if (request.stopped?.()) return false;
    }
  } finally {
    check.close();
  }
}
