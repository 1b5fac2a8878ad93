import type { ServerResponse } from 'node:http';

export interface DelayedReply {
  /** The body to send; undefined answers 404. */
  body: string | undefined;
  contentType?: string;
  delayMs: number;
  /** Called when the request starts waiting and when it is done waiting (answered or abandoned). */
  onWait?: () => void;
  onSettle?: () => void;
}

/**
 * Answers after a delay, unless the client goes away first: the timer is
 * cancelled then, so a crawler killed mid-request leaves no timers behind.
 */
export function replyAfter(res: ServerResponse, reply: DelayedReply): Promise<void> {
  reply.onWait?.();
  return new Promise<void>((resolve) => {
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      reply.onSettle?.();
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      if (reply.body === undefined) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      else res.writeHead(200, { 'content-type': reply.contentType ?? 'text/html; charset=utf-8' }).end(reply.body);
      settle();
    }, reply.delayMs);
    // 'close' also fires after a normal answer; then there is nothing left to cancel.
    res.once('close', settle);
  });
}
