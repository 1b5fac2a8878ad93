/**
 * Text gathered from a streaming tokenizer with HTML's whitespace folded as
 * it comes: each run of tab, line feed, form feed, carriage return and space
 * is one space, none at the start, up to `cap` characters. It gives what one
 * regular-expression pass over the whole text would (`toString` trims), but
 * most pieces a page gives are either runs of indentation, which leave a
 * space at most, or words with single spaces, which are taken whole: nothing
 * is copied twice. Like CappedText, `settle` (at the end of each piece the
 * tokenizer reads) copies what the piece gave into strings of their own, so
 * the piece itself can go.
 */
export class FoldedText {
  private readonly settled: string[] = [];
  private fresh: string[] = [];
  length = 0;
  /** Nothing taken yet, or the last character taken is a space: whitespace now adds nothing. */
  private spaced = true;

  constructor(private readonly cap: number) {}

  add(text: string): void {
    if (this.length >= this.cap) return;
    let spaced = this.spaced;
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c > 32 || (c !== 32 && c !== 10 && c !== 9 && c !== 13 && c !== 12)) {
        spaced = false;
        continue;
      }
      // One space after a word stays as it is; any other whitespace ends the stretch taken whole.
      if (c === 32 && !spaced) {
        spaced = true;
        continue;
      }
      if (i > from) this.take(text.slice(from, i));
      if (!spaced) this.take(' ');
      spaced = true;
      from = i + 1;
    }
    if (from < text.length) this.take(from === 0 ? text : text.slice(from));
    this.spaced = spaced;
  }

  settle(): void {
    const { fresh } = this;
    if (fresh.length === 0) return;
    // join() copies two or more strings into a new one, but hands a lone one back as it is.
    this.settled.push(fresh.length === 1 ? (' ' + fresh[0]).slice(1) : fresh.join(''));
    this.fresh = [];
  }

  /** The text, trimmed as String.prototype.trim trims (other Unicode spaces at its ends go too). */
  toString(): string {
    this.settle();
    return this.settled.join('').trim();
  }

  private take(text: string): void {
    const room = this.cap - this.length;
    if (room <= 0) return;
    const taken = text.length > room ? text.slice(0, room) : text;
    this.fresh.push(taken);
    this.length += taken.length;
  }
}
