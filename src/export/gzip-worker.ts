import { parentPort, workerData } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { movableBytes } from '../pipeline/movable-bytes.js';
import { stopAsked } from '../pipeline/thread-stop.js';
import type { GzipBatch, GzipReply, GzipStop, GzipThreadData } from './gzip-protocol.js';

const { stop } = workerData as GzipThreadData;

/** The batch's members, or nothing once the thread is to stop (what it holds is dropped). */
function answer({ id, records }: GzipBatch): GzipReply | undefined {
  try {
    const members: Uint8Array[] = [];
    for (const record of records) {
      if (stopAsked(stop)) return undefined;
      // zlib's defaults, as on the main thread before: a member is the same bytes whichever thread made it.
      members.push(movableBytes(gzipSync(record)));
    }
    return { id, members };
  } catch (error) {
    return { id, failure: error instanceof Error ? error.message : String(error) };
  }
}

// One gzip thread: each batch of records is answered in one message, with one member per record.
parentPort!.on('message', (message: GzipBatch | GzipStop) => {
  const reply = 'stop' in message || stopAsked(stop) ? undefined : answer(message);
  // Ending by itself, between two records (see thread-stop.ts).
  if (!reply) return parentPort!.close();
  parentPort!.postMessage(reply, 'members' in reply ? reply.members.map((member) => member.buffer as ArrayBuffer) : []);
});
