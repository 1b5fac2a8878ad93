import type { ClaimedUrl, DiscoveredUrl, Reason } from '../storage/ports.js';
import type { HttpResponse } from './http/http-client.js';

/** One claimed URL on its way through the pipeline. */
export interface CrawlItem {
  claim: ClaimedUrl;
  /** Requests made for it in this run. */
  attempts: number;
  /** The latest complete HTTP response, if any came. */
  response?: HttpResponse;
  /** `stopped`: the crawl was stopped before it finished; it goes back to the queue. */
  state: 'done' | 'failed' | 'stopped';
  error?: Reason;
  discovered: DiscoveredUrl[];
}

/** What became of one claimed URL: the seed crawler's per-fetch statistics. */
export interface FetchReport {
  url: string;
  state: CrawlItem['state'];
  tries: number;
  status?: number;
  contentType?: string;
  location?: string;
  size?: number;
  elapsedMs?: number;
  linksFound: number;
  linksNew: number;
  error?: Reason;
}
