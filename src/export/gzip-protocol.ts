/** Records for a gzip thread, a batch in one message; each record's buffer is transferred, not copied. */
export interface GzipBatch {
  id: number;
  records: Uint8Array[];
}

/** Wakes an idle thread to see its stop flag (see GzipThread.close). */
export interface GzipStop {
  stop: true;
}

/** A thread's workerData: `stop[0]` is set to 1 when it is to drop what it holds and end, between two records. */
export interface GzipThreadData {
  stop: Int32Array;
}

/** A batch's answer: one gzip member per record, in the records' order, transferred back; or why it failed. */
export type GzipReply = { id: number; members: Uint8Array[] } | { id: number; failure: string };
