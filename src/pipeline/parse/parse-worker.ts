import { parentPort, threadId, workerData } from 'node:worker_threads';
import { THREAD_READY, type ParseReply, type ParseRequest, type ParseThreadData, type THREAD_STOP } from './parse-protocol.js';
import { readResponse } from './read-response.js';
import { movableBytes } from '../movable-bytes.js';
import { stopAsked } from '../thread-stop.js';

const { stop } = workerData as ParseThreadData;

function answer({ id, job, settings }: ParseRequest): ParseReply {
  try {
    const { result, sha256, sha1, stored } = readResponse(job, settings);
    // Copied out of Node's shared pool, so only the digests' bytes cross; the compressed body is moved (movableBytes).
    const reply: ParseReply = { id, result, sha256: new Uint8Array(sha256), sha1: new Uint8Array(sha1), body: job.body, threadId };
    if (stored) reply.stored = movableBytes(stored);
    return reply;
  } catch (error) {
    return { id, failure: error instanceof Error ? (error.stack ?? error.message) : String(error), body: job.body, threadId };
  }
}

// One parse thread: a batch of responses is answered in one message, each body going back with its answer.
// Asked to stop, it drops what it holds and ends by itself between two responses (see thread-stop.ts).
parentPort!.on('message', (batch: ParseRequest[] | typeof THREAD_STOP) => {
  const replies: ParseReply[] = [];
  for (const request of Array.isArray(batch) ? batch : []) {
    if (stopAsked(stop)) break;
    replies.push(answer(request));
  }
  if (stopAsked(stop)) return parentPort!.close();
  parentPort!.postMessage(
    replies,
    replies.flatMap((reply) => [
      reply.body.buffer as ArrayBuffer,
      ...('stored' in reply && reply.stored ? [reply.stored.buffer as ArrayBuffer] : []),
    ]),
  );
});
parentPort!.postMessage(THREAD_READY);
