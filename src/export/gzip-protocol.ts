/** Records for a gzip thread, a batch in one message; each record's buffer is transferred, not copied. */
export interface GzipBatch {
  id: number;
  records: Uint8Array[];
}

/** A batch's answer: one gzip member per record, in the records' order, transferred back; or why it failed. */
export type GzipReply = { id: number; members: Uint8Array[] } | { id: number; failure: string };
