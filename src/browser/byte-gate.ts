/**
 * Bounds the bytes being read out of the browser at once, across its pages: a body is read whole over
 * DevTools (as base64, then decoded), which costs a few times its size while it lasts. Reads wait their
 * turn first come first served; one larger than the bound reads alone.
 */
export class ByteGate {
  private inFlight = 0;
  private readonly waiting: { bytes: number; go: () => void }[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves once `bytes` may be read; call the returned function once when they are read. */
  async enter(bytes: number): Promise<() => void> {
    if (this.waiting.length === 0 && this.fits(bytes)) this.inFlight += bytes;
    else await new Promise<void>((go) => this.waiting.push({ bytes, go }));
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.inFlight -= bytes;
      this.admit();
    };
  }

  private fits(bytes: number): boolean {
    return this.inFlight === 0 || this.inFlight + bytes <= this.limit;
  }

  private admit(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) {
      const next = this.waiting.shift()!;
      this.inFlight += next.bytes;
      next.go();
    }
  }
}
