/**
 * Text gathered from a streaming tokenizer, up to `cap` characters; what comes later is
 * dropped. The tokenizer's strings are slices of the piece being read, and V8 keeps a whole
 * piece alive for any slice of it, so `settle` (at the end of each piece) copies what the
 * piece gave into a string of its own, and old pieces can go.
 */
export class CappedText {
  private readonly settled: string[] = [];
  private fresh: string[] = [];
  length = 0;
  /** Whether the last string taken was a single space (a word separator, say). */
  endsWithSpace = false;

  constructor(private readonly cap: number) {}

  add(text: string): void {
    const room = this.cap - this.length;
    if (room <= 0 || text === '') return;
    const taken = text.length > room ? text.slice(0, room) : text;
    this.fresh.push(taken);
    this.length += taken.length;
    this.endsWithSpace = taken === ' ';
  }

  settle(): void {
    const { fresh } = this;
    if (fresh.length === 0) return;
    // join() copies two or more strings into a new one, but hands a lone one back as it is.
    this.settled.push(fresh.length === 1 ? (' ' + fresh[0]).slice(1) : fresh.join(''));
    this.fresh = [];
  }

  toString(): string {
    this.settle();
    return this.settled.join('');
  }
}
