/**
 * The part of a document a streaming tokenizer may still point into: the piece it is reading
 * and the one before, addressed by offsets into the whole document. htmlparser2's Tokenizer
 * hands out such offsets, and at each piece's end it reports the text and attribute value read
 * so far, so what it reports later starts at most a few characters into the previous piece.
 * Only a token never reported piecewise (a tag or attribute name, a comment, text inside a
 * `<script>` cut by a partial `</script`) can start further back; the scanners read such
 * tokens only when they are short, and a slice reaching before the window starts at the
 * window's start.
 */
export class DocumentWindow {
  /** The piece being read, and where it starts in the document. */
  current = '';
  currentStart = 0;
  private previous = '';
  private previousStart = 0;

  /** Moves on to the next piece. */
  push(piece: string): void {
    this.previous = this.current;
    this.previousStart = this.currentStart;
    this.currentStart += this.current.length;
    this.current = piece;
  }

  /** The document from `start` to `end` (offsets into the whole), as far as the window holds it. */
  slice(start: number, end: number): string {
    const currentStart = this.currentStart;
    if (start >= currentStart) return this.current.slice(start - currentStart, end - currentStart);
    const from = Math.max(start, this.previousStart) - this.previousStart;
    if (end <= currentStart) return this.previous.slice(from, end - this.previousStart);
    return this.previous.slice(from) + this.current.slice(0, end - currentStart);
  }
}
