/**
 * Words compared at most, from the start of each text: the distance below costs words² steps, so
 * 2,000 words (about 12 KB of text, several screens) bound a page's comparison to 4 million steps
 * (milliseconds), whatever the page's size.
 */
export const MAX_WORDS = 2000;

const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[\s\p{P}]+/u)
    .filter(Boolean)
    .slice(0, MAX_WORDS);

/**
 * How alike two texts are, 0..1: 1 - (Levenshtein distance between their word sequences) / (the longer
 * one's length in words), case and punctuation aside. Browsertrix's QA takes the same ratio over
 * characters; over words the same bound covers five times more text, a word missing counts once
 * however long it is, and the order still counts (a page whose blocks came out shuffled matches less).
 * Two empty texts match fully.
 */
export function textSimilarity(expected: string, actual: string): number {
  const a = words(expected);
  const b = words(actual);
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  // One row of the distance table at a time: memory is one row of b.
  let previous = new Uint32Array(b.length + 1);
  let current = new Uint32Array(b.length + 1);
  for (let j = 0; j <= b.length; j += 1) previous[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    current[0] = i;
    const word = a[i - 1];
    for (let j = 1; j <= b.length; j += 1) {
      const substitute = previous[j - 1]! + (word === b[j - 1] ? 0 : 1);
      current[j] = Math.min(substitute, previous[j]! + 1, current[j - 1]! + 1);
    }
    [previous, current] = [current, previous];
  }
  return 1 - previous[b.length]! / Math.max(a.length, b.length);
}
