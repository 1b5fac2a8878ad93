import { createHash } from 'node:crypto';
import { compressBody } from '../compress-body.js';
import { parseResponse, type ParseJob, type ParseResult, type ParseSettings } from './parse-response.js';

/**
 * A parse thread's work on one response: what it says, and its body's SHA-256 (what the archive stores it
 * under) and SHA-1 (the WARC payload digest). Done on a parse thread, or on the main thread while none has
 * loaded yet.
 */
export function readResponse(
  job: ParseJob,
  settings: ParseSettings,
): { result: ParseResult; sha256: Buffer; sha1: Buffer; stored?: Uint8Array } {
  const result = parseResponse(job, settings);
  const sha256 = createHash('sha256').update(job.body).digest();
  const sha1 = createHash('sha1').update(job.body).digest();
  if (!settings.compact) return { result, sha256, sha1 };
  // The bytes the archive stores (compressed, or the body when that does not pay), made here rather than on the writer's thread.
  const stored = compressBody(job.body);
  return stored === job.body ? { result, sha256, sha1 } : { result, sha256, sha1, stored };
}
