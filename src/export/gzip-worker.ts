import { parentPort } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { movableBytes } from '../pipeline/movable-bytes.js';
import type { GzipBatch, GzipReply } from './gzip-protocol.js';

function answer({ id, records }: GzipBatch): GzipReply {
  try {
    // zlib's defaults, as on the main thread before: a member is the same bytes whichever thread made it.
    return { id, members: records.map((record) => movableBytes(gzipSync(record))) };
  } catch (error) {
    return { id, failure: error instanceof Error ? error.message : String(error) };
  }
}

// One gzip thread: each batch of records is answered in one message, with one member per record.
parentPort!.on('message', (batch: GzipBatch) => {
  const reply = answer(batch);
  parentPort!.postMessage(reply, 'members' in reply ? reply.members.map((member) => member.buffer as ArrayBuffer) : []);
});
