/**
 * What the pipeline needs from storage, as types only: the pipeline depends
 * on these shapes, never on SQLite.
 */

export type UrlState = 'queued' | 'fetching' | 'done' | 'failed' | 'skipped';

/** A URL taken from the frontier for fetching. */
export interface ClaimedUrl {
  id: number;
  url: string;
  depth: number;
  /** How many redirects led to this URL (0 for a link or a root). */
  redirectHops: number;
  /** Attempts made in earlier runs. */
  tries: number;
}

export type LinkKind = 'link' | 'redirect';

/** A URL found on a page or in a redirect, already normalised and judged. */
export interface DiscoveredUrl {
  url: string;
  kind: LinkKind;
  depth: number;
  redirectHops: number;
  /** Why it will not be fetched; absent when it is to be queued. */
  skip?: Reason;
  /** A hint that the URL is already in the archive, so no insert is tried. */
  known?: boolean;
}

export interface StoredResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  contentType: string | null;
  charset: string | null;
  location: string | null;
  /** Bytes received, after Content-Encoding was undone. */
  body: Uint8Array;
  fetchedAt: string;
  elapsedMs: number;
}

/** A machine-readable code and a sentence for people, for a failure or a skip. */
export interface Reason {
  code: string;
  message: string;
}

/** Everything learnt about one claimed URL, committed in one transaction. */
export interface PageOutcome {
  claim: ClaimedUrl;
  state: 'done' | 'failed';
  /** Attempts made in total, over all runs. */
  tries: number;
  error?: Reason;
  /** The latest HTTP response, if any came. */
  response?: StoredResponse;
  discovered: DiscoveredUrl[];
}

export interface CommitResult {
  /** How many discovered URLs were new to the archive. */
  newUrls: number;
}

export interface FrontierPort {
  /** Marks up to `limit` queued URLs as fetching and returns them, oldest first. */
  claim(limit: number): ClaimedUrl[];
  /** Returns a claimed URL to the queue untouched (a stop interrupted it). */
  release(id: number): void;
}

export interface PageSinkPort {
  /** Stores a page, its links and its final state together, or nothing. */
  commit(outcome: PageOutcome): CommitResult;
}
