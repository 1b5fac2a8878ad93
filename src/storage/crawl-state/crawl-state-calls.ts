import type { CrawlStateMethod } from './crawl-state-protocol.js';
import type { SqliteFrontier } from './sqlite-frontier.js';
import type { SqlitePageSink } from './sqlite-page-sink.js';
import type { SqliteControl } from '../control/sqlite-control.js';

/** Answers a call to the crawl-state thread by name. */
export type AnswerCall = (method: CrawlStateMethod, args: unknown[]) => Promise<unknown>;

/**
 * The calls the crawl-state thread answers, by name, on a frontier, a sink and the crawl's controls: on the thread, and on the
 * main thread's connection until the thread is ready, so both answer alike.
 */
export function answerCalls(frontier: SqliteFrontier, sink: SqlitePageSink, control: SqliteControl): AnswerCall {
  const methods: Record<CrawlStateMethod, (...args: never[]) => Promise<unknown>> = {
    claimFrom: (origin: string, limit: number, only?: 'requisite') => frontier.claimFrom(origin, limit, only),
    queuedOrigins: () => frontier.queuedOrigins(),
    release: (claim: Parameters<SqliteFrontier['release']>[0]) => frontier.release(claim),
    claimOwn: (url: Parameters<SqliteFrontier['claimOwn']>[0]) => frontier.claimOwn(url),
    renew: (claims: Parameters<SqliteFrontier['renew']>[0]) => frontier.renew(claims),
    storedResponse: (key: string) => frontier.storedResponse(key),
    pagesFetched: () => frontier.pagesFetched(),
    requeueRobotsUnavailable: (origin?: string) => frontier.requeueRobotsUnavailable(origin),
    commitAll: (outcomes: Parameters<SqlitePageSink['commitAll']>[0]) => sink.commitAll(outcomes),
    waitingControl: () => control.waiting(),
    applyControl: (upTo?: number) => control.applyWaiting(upTo),
    writeLive: (live: Parameters<SqliteControl['writeLive']>[0]) => control.writeLive(live),
  };
  return (method, args) => (methods[method] as (...args: unknown[]) => Promise<unknown>)(...args);
}
