import type { ParseJob, ParseResult, ParseSettings } from './parse-response.js';

/** A response for a parse thread (requests cross in batches); its body's buffer is transferred, not copied. */
export interface ParseRequest {
  id: number;
  job: ParseJob;
  settings: ParseSettings;
}

/**
 * The answer, with the body's buffer transferred back for the archive, its
 * SHA-256 (what the archive stores it under) and SHA-1 (the WARC payload
 * digest), and where the work ran.
 */
export type ParseReply = { id: number; body: Uint8Array; threadId: number } & (
  { result: ParseResult; sha256: Uint8Array; sha1: Uint8Array; stored?: Uint8Array } | { failure: string }
);

/** What a thread posts once it has loaded and listens: until one has, the pool parses on the calling thread. */
export const THREAD_READY = 'ready';

/** Wakes an idle thread to see its stop flag (see thread-stop.ts). */
export const THREAD_STOP = 'stop';

/** A thread's workerData: its stop flag, set when it is to drop what it holds and end between two responses. */
export interface ParseThreadData {
  stop: Int32Array;
}

/** A thread's message: answers to one batch, or that it is ready. */
export type ThreadMessage = ParseReply[] | typeof THREAD_READY;
