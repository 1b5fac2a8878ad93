import { createHash } from 'node:crypto';
import { parentPort, threadId } from 'node:worker_threads';
import type { ParseReply, ParseRequest } from './parse-protocol.js';
import { parseResponse } from './parse-response.js';

// One parse thread: each request is answered on its own, and the body goes back with the answer.
parentPort!.on('message', ({ id, job, settings }: ParseRequest) => {
  let reply: ParseReply;
  try {
    const result = parseResponse(job, settings);
    // Copied out of Node's shared pool, so only 32 bytes cross.
    const sha256 = new Uint8Array(createHash('sha256').update(job.body).digest());
    reply = { id, result, sha256, body: job.body, threadId };
  } catch (error) {
    reply = { id, failure: error instanceof Error ? (error.stack ?? error.message) : String(error), body: job.body, threadId };
  }
  parentPort!.postMessage(reply, [job.body.buffer as ArrayBuffer]);
});
