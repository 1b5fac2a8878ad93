import { CappedText } from './capped-text.js';

/**
 * Text gathered from a streaming tokenizer with HTML's whitespace folded as
 * it comes: each run of tab, line feed, form feed, carriage return and space
 * is one space, none at the start, up to `cap` characters. It gives what one
 * regular-expression pass over the whole text would (`toString` trims), but
 * most pieces a page gives are either runs of indentation, which leave a
 * space at most, or words with single spaces, which are taken whole: nothing
 * is copied twice. What is taken goes into a CappedText, so `settle` (at
 * the end of each piece the tokenizer reads) lets the piece go.
 */
export class FoldedText {
  private readonly text: CappedText;
  /** Nothing taken yet, or the last character taken is a space: whitespace now adds nothing. */
  private spaced = true;

  constructor(private readonly cap: number) {
    this.text = new CappedText(cap);
  }

  get length(): number {
    return this.text.length;
  }

  add(text: string): void {
    if (this.text.length >= this.cap) return;
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
      if (i > from) this.text.add(text.slice(from, i));
      if (!spaced) this.text.add(' ');
      spaced = true;
      from = i + 1;
    }
    if (from < text.length) this.text.add(from === 0 ? text : text.slice(from));
    this.spaced = spaced;
  }

  settle(): void {
    this.text.settle();
  }

  /** The text, trimmed as String.prototype.trim trims (other Unicode spaces at its ends go too). */
  toString(): string {
    return this.text.toString().trim();
  }
}
