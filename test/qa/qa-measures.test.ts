import { describe, expect, it } from 'vitest';
import { pixelDifference, type Rgba } from '../../src/qa/pixel-difference.js';
import { qaScore } from '../../src/qa/qa-score.js';
import { MAX_WORDS, textSimilarity } from '../../src/qa/text-similarity.js';

// The three measures of a replay and how they make a score, on values worked out by hand.

const image = (width: number, height: number, rgba: [number, number, number, number] = [255, 255, 255, 255]): Rgba => {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
};

describe('pixelDifference', () => {
  it('is 0 for the same picture, and the share of pixels drawn in another colour otherwise', () => {
    const a = image(10, 10);
    expect(pixelDifference(a, image(10, 10))).toBe(0);
    const b = image(10, 10);
    b.data.set([0, 0, 0, 255], 0);
    b.data.set([200, 30, 30, 255], 4 * 55);
    expect(pixelDifference(a, b)).toBe(0.02);
  });

  it('lets a shade a lossy encoder makes pass, as pixelmatch does at its default threshold', () => {
    expect(pixelDifference(image(4, 4, [120, 120, 120, 255]), image(4, 4, [123, 121, 119, 255]))).toBe(0);
    expect(pixelDifference(image(4, 4, [120, 120, 120, 255]), image(4, 4, [200, 120, 120, 255]))).toBe(1);
  });

  it('counts the pixels one picture has and the other has not', () => {
    expect(pixelDifference(image(10, 10), image(10, 5))).toBe(0.5);
    expect(pixelDifference(image(10, 10), image(20, 20))).toBe(0);
  });
});

describe('textSimilarity', () => {
  const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `w${i + from}`).join(' ');

  it('is 1 for the same words, whatever the case, spacing and punctuation, and 0 for none in common', () => {
    expect(textSimilarity('The keepers, at dusk.', 'the   KEEPERS at dusk')).toBe(1);
    expect(textSimilarity('', '')).toBe(1);
    expect(textSimilarity('lighthouse', '')).toBe(0);
    expect(textSimilarity('one two three', 'four five six')).toBe(0);
  });

  it('is 1 less the words to add, drop or change over the longer text', () => {
    expect(textSimilarity(words(10), words(9))).toBeCloseTo(0.9, 10);
    expect(textSimilarity('a b c d', 'a x c d')).toBe(0.75);
    // Order counts: two blocks swapped are words changed.
    expect(textSimilarity('a b c d', 'c d a b')).toBe(0);
  });

  it(`reads the first ${MAX_WORDS} words of each text only`, () => {
    const long = words(MAX_WORDS);
    expect(textSimilarity(`${long} ${words(5000, MAX_WORDS)}`, `${long} other words`)).toBe(1);
  });
});

describe('qaScore', () => {
  it('weighs the picture and the text twice what loaded', () => {
    expect(qaScore({ pixelDiff: 0, textMatch: 1, resourcesLoaded: 4, resourcesFailed: 0 })).toBe(1);
    expect(qaScore({ pixelDiff: 0.5, textMatch: 0.5, resourcesLoaded: 1, resourcesFailed: 1 })).toBe(0.5);
    expect(qaScore({ pixelDiff: 1, textMatch: 1, resourcesLoaded: 1, resourcesFailed: 0 })).toBe(0.6);
  });

  it('leaves out a measure not taken, and counts a page that requested nothing as fully loaded', () => {
    expect(qaScore({ pixelDiff: null, textMatch: 0.4, resourcesLoaded: 0, resourcesFailed: 0 })).toBeCloseTo((0.4 * 2 + 1) / 3, 10);
    expect(qaScore({ pixelDiff: null, textMatch: null, resourcesLoaded: 1, resourcesFailed: 3 })).toBe(0.25);
  });
});
