import { NoConcatInflator, type AsyncIterReader } from 'warcio';

/** Compressed bytes given to the inflater at a time: with deflate's 1032:1 at most, what one push can make stays bounded. */
export const PUSH_BYTES = 16 * 1024;

/** pako 1's stream state (warcio's own reader reads it too): the input a member's end left over, and zlib's message. */
type InflateState = { strm: { avail_in: number; msg?: string } };

/** warcio's inflater: pako's, stopping at the end of one gzip member. Offsets are counted here, not by a reader. */
export class MemberInflator extends NoConcatInflator<AsyncIterReader> {
  constructor() {
    super({}, undefined as never);
  }
  override onEnd(status: number): void {
    this.err = status;
  }
  /** Compressed bytes of the last push that lie after the member's end. */
  get leftOver(): number {
    return (this as unknown as InflateState).strm.avail_in;
  }
  get message(): string {
    return (this as unknown as InflateState).strm.msg || `zlib error ${this.err}`;
  }
}
