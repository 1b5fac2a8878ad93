import { defer, finalize, mergeMap, Observable, Subject, type ObservableInput } from 'rxjs';
import type { ClaimedUrl, FrontierPort } from '../../storage/ports.js';

export interface ClaimControl {
  /** Once true, nothing more is claimed; the stream completes when in-flight work ends. */
  readonly stopping: boolean;
}

/**
 * The crawl's source and its concurrency cap in one: URLs are claimed from
 * the frontier only when a slot is free, so mergeMap never buffers and memory
 * does not grow with the frontier. Completes when nothing can be claimed and
 * nothing is in flight (an empty queue with work in flight is not the end:
 * that work may discover more).
 */
export function claimFrontier<R>(
  frontier: FrontierPort,
  concurrency: number,
  control: ClaimControl,
  processOne: (claim: ClaimedUrl) => ObservableInput<R>,
): Observable<R> {
  return new Observable<R>((subscriber) => {
    const claims = new Subject<ClaimedUrl>();
    let inFlight = 0;

    const fill = () => {
      if (subscriber.closed || claims.closed) return;
      try {
        if (!control.stopping) {
          const claimed = frontier.claim(concurrency - inFlight);
          inFlight += claimed.length;
          for (const claim of claimed) claims.next(claim);
        }
      } catch (error) {
        claims.error(error);
        return;
      }
      if (inFlight === 0) claims.complete();
    };

    const subscription = claims
      .pipe(
        mergeMap(
          (claim) =>
            defer(() => processOne(claim)).pipe(
              finalize(() => {
                inFlight -= 1;
                fill();
              }),
            ),
          concurrency,
        ),
      )
      .subscribe(subscriber);
    fill();
    return subscription;
  });
}
