import { defer, finalize, mergeMap, Observable, Subject, type ObservableInput } from 'rxjs';
import type { NextTask, Task, TaskSource } from '../politeness/host-scheduler.js';

export interface ClaimControl {
  /** Once true, nothing more is claimed; the stream completes when in-flight work ends. */
  readonly stopping: boolean;
  /** Fires when a stop is asked for, so a crawl waiting on a host's delay ends at once. */
  readonly stopRequested?: AbortSignal;
  /** While true, nothing new starts; work in flight finishes, and the stream does not complete. */
  readonly paused?: boolean;
  /** Called on every change of `paused` or the cap (a resume, a new concurrency): the source is looked at again. */
  onChange?(listener: () => void): () => void;
}

/**
 * Called by a task when its requests are over (its response is read, what
 * remains is parsing and committing): its request slot takes the next task
 * at once. Calling it again, or never, is harmless: the slot is freed at the
 * task's end at the latest.
 */
export type RequestsDone = () => void;

/**
 * The crawl's source and its concurrency cap in one: tasks are taken from
 * the scheduler only when a request slot is free, so mergeMap never buffers
 * and memory does not grow with the frontier. A slot is free once its task's
 * requests are over, so its next request overlaps the last page's parse and
 * commit; at most `concurrency` more tasks wait to commit, so at most twice
 * `concurrency` URLs are ever taken and not yet committed (the crash bound).
 * When every origin with work is waiting (a delay, a pause), a timer wakes
 * the source; when it waits on
 * the frontier (a claim under way), the claim's answer does. Completes when
 * nothing can be started, nothing is in flight and no claim is under way
 * (an empty queue with work in flight is not the end: that work may
 * discover more), once the source has given back what it held. A paused
 * crawl never completes (unless it is stopped). The cap may change while
 * the crawl runs (`concurrency` as a function): lowered, nothing starts
 * until the work in flight is under it; raised, more starts at once.
 */
export function claimFrontier<R>(
  source: TaskSource,
  concurrency: number | (() => number),
  control: ClaimControl,
  processOne: (task: Task, requestsDone: RequestsDone) => ObservableInput<R>,
  clock: () => number = Date.now,
): Observable<R> {
  return new Observable<R>((subscriber) => {
    const tasks = new Subject<Task>();
    /** Tasks whose requests are not over: each holds a request slot. */
    let requesting = 0;
    /** Tasks started and not ended: requesting, or parsing and committing. */
    let inFlight = 0;
    let timer: NodeJS.Timeout | undefined;
    let timerAt = Infinity;
    let closing = false;

    const finish = () => {
      closing = true;
      source.close().then(
        () => tasks.complete(),
        (error: unknown) => tasks.error(error),
      );
    };

    const wakeAt = (at: number) => {
      if (timer !== undefined && timerAt <= at) return;
      clearTimeout(timer);
      timerAt = at;
      timer = setTimeout(
        () => {
          timer = undefined;
          timerAt = Infinity;
          fill();
        },
        Math.max(0, at - clock()),
      );
    };

    const fill = () => {
      if (subscriber.closed || tasks.closed || closing) return;
      let next: NextTask = 'empty';
      try {
        const cap = typeof concurrency === 'number' ? concurrency : concurrency();
        while (!control.stopping && !control.paused && requesting < cap && inFlight < 2 * cap) {
          next = source.next(clock());
          if (typeof next === 'string' || 'wakeAt' in next) break;
          requesting += 1;
          inFlight += 1;
          tasks.next(next);
        }
      } catch (error) {
        tasks.error(error);
        return;
      }
      if (control.stopping) {
        clearTimeout(timer);
        timer = undefined;
      } else if (typeof next !== 'string' && 'wakeAt' in next) {
        wakeAt(next.wakeAt);
      }
      // A claim under way is not the end (unless stopping): its answer calls fill again.
      if (inFlight === 0 && timer === undefined && (control.stopping || (next === 'empty' && !control.paused))) finish();
    };

    const onStop = () => fill();
    control.stopRequested?.addEventListener('abort', onStop);
    const unlisten = control.onChange?.(onStop);
    source.onSettled(fill);
    const subscription = tasks
      .pipe(
        mergeMap((task) => {
          let requestsOver = false;
          const endRequests = () => {
            if (requestsOver) return;
            requestsOver = true;
            requesting -= 1;
            source.finished(task);
          };
          const requestsDone = () => {
            if (requestsOver) return;
            endRequests();
            fill();
          };
          return defer(() => processOne(task, requestsDone)).pipe(
            finalize(() => {
              endRequests();
              inFlight -= 1;
              fill();
            }),
          );
          // The source starts a task only under the cap (which may change): mergeMap never holds one back.
        }, Infinity),
      )
      .subscribe(subscriber);
    fill();
    return () => {
      clearTimeout(timer);
      control.stopRequested?.removeEventListener('abort', onStop);
      unlisten?.();
      subscription.unsubscribe();
      // Torn down after an archive error: what was claimed stays `fetching`, and resume queues it again.
      source.close().catch(() => undefined);
    };
  });
}
