/** At most `size` holders at once; the others wait their turn, first come first served. */
export class TabQueue {
  private inUse = 0;
  private readonly waiting: { grant: () => void; refuse: (error: Error) => void }[] = [];

  constructor(private readonly size: number) {}

  /** Resolves once a tab is free; rejects with `onAbort()` if `signal` aborts first. Call the returned function once to give the tab back. */
  async take(signal: AbortSignal, onAbort: () => Error): Promise<() => void> {
    if (signal.aborted) throw onAbort();
    if (this.inUse < this.size) {
      this.inUse += 1;
      return this.giver();
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        grant: () => {
          signal.removeEventListener('abort', abort);
          resolve();
        },
        refuse: (error: Error) => {
          signal.removeEventListener('abort', abort);
          reject(error);
        },
      };
      const abort = () => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(onAbort());
      };
      signal.addEventListener('abort', abort, { once: true });
      this.waiting.push(entry);
    });
    return this.giver();
  }

  /** Refuses every waiter with `error` (the renderer is closing). */
  refuseAll(error: Error): void {
    for (const entry of this.waiting.splice(0)) entry.refuse(error);
  }

  private giver(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      // The tab passes straight to the next waiter: the count stays.
      if (next) next.grant();
      else this.inUse -= 1;
    };
  }
}
