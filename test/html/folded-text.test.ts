import { describe, expect, it } from 'vitest';
import { FoldedText } from '../../src/html/folded-text.js';
import { mulberry32 } from '../support/prng.js';

// Whitespace folded piece by piece gives what one pass over the whole text gives: each run of HTML's
// whitespace one space, the ends trimmed, whatever the pieces and wherever they are cut.

const oneRegexPass = (text: string) => text.replace(/[\t\n\f\r ]+/g, ' ').trim();

function folded(pieces: string[], cap = Number.MAX_SAFE_INTEGER): string {
  const text = new FoldedText(cap);
  for (const piece of pieces) {
    text.add(piece);
    text.settle();
  }
  return text.toString();
}

describe('FoldedText', () => {
  it('folds runs of whitespace within and across pieces, and trims the ends', () => {
    expect(folded(['\n    ', 'Hello,', '  ', 'world', '\t\r\n', ' again\f '])).toBe('Hello, world again');
    expect(folded(['a', ' ', ' ', 'b'])).toBe('a b');
    expect(folded(['a ', ' b'])).toBe('a b');
    expect(folded(['   ', '\n'])).toBe('');
    // No-break and other Unicode spaces are words' characters inside the text, trimmed at its ends as trim() trims.
    expect(folded(['\u00a0 x \u00a0 y\u2003'])).toBe('x \u00a0 y');
  });

  it('gives what one regular-expression pass gives, on random text cut into random pieces', () => {
    const random = mulberry32(7);
    const alphabet = ['a', 'b', ' ', ' ', '\n', '\t', '\r', '\f', '\u00a0', 'é', '\u000b', '\u2028'];
    for (let round = 0; round < 500; round++) {
      const length = Math.floor(random() * 60);
      const text = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const pieces: string[] = [];
      for (let at = 0; at < text.length;) {
        const next = Math.min(text.length, at + 1 + Math.floor(random() * 8));
        pieces.push(text.slice(at, next));
        at = next;
      }
      expect(folded(pieces)).toBe(oneRegexPass(text));
    }
  });

  it('takes at most its cap of folded characters', () => {
    expect(folded(['one  two   three'], 7)).toBe('one two');
    expect(folded(['\n\n\n', 'abcdef', 'ghi'], 4)).toBe('abcd');
  });
});
