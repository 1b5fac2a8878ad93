// The benchmark's metric as its evaluate.py computes it (scrapinghub/article-extraction-benchmark): the cases of
// its tests.py, and figures evaluate.py printed for the texts below (Python 3.11).
import { describe, expect, it } from 'vitest';
import { accuracy, evaluate, metricsFromTpFpFns, ngrams, shingleMatching, tokenize } from '../../scripts/bench/extraction-metric.mjs';

const close = (actual: number[], expected: number[]) => actual.forEach((x, i) => expect(x).toBeCloseTo(expected[i]!, 12));

describe('tokens as Python re \\w+ finds them', () => {
  it('splits on punctuation and spaces', () => {
    expect(tokenize('a b,cd:e(foo,bar) ')).toEqual(['a', 'b', 'cd', 'e', 'foo', 'bar']);
  });

  it('keeps letters, numbers and _ of any script, and splits at combining marks as Python does', () => {
    expect(tokenize('नमस्ते दुनिया café_au-lait ½ ² ٣ 東京の天気')).toEqual([
      'नमस',
      'त',
      'द',
      'न',
      'य',
      'café_au',
      'lait',
      '½',
      '²',
      '٣',
      '東京の天気',
    ]);
  });
});

describe('shingles', () => {
  it.each([
    ['!', 4, []],
    ['a,b c ', 5, [['a', 'b', 'c']]],
    [
      'aa 11 c 22',
      3,
      [
        ['aa', '11', 'c'],
        ['11', 'c', '22'],
      ],
    ],
    [
      'a b c a b c',
      3,
      [
        ['a', 'b', 'c'],
        ['b', 'c', 'a'],
        ['c', 'a', 'b'],
        ['a', 'b', 'c'],
      ],
    ],
  ] as const)('%j in %i-grams', (text, n, expected) => {
    expect(ngrams(text, n).map((s) => s.split('\u0000'))).toEqual(expected);
  });
});

describe('per page: tp, fp, fn normalised to sum 1', () => {
  it.each([
    ['a b c', 'a b c', [1, 0, 0]],
    ['a b c d', 'a b c', [0.5, 0, 0.5]],
    ['a b c', 'a b c d', [0.5, 0.5, 0]],
    ['', '', [0, 0, 0]],
    ['a', '', [0, 0, 1]],
    ['', 'a', [0, 1, 0]],
    ['a b c a b c', 'a b c', [0.25, 0, 0.75]],
    ['a b c', 'a b c a b c', [0.25, 0.75, 0]],
  ] as const)('%j against %j in 3-grams', (truth, pred, expected) => {
    close(shingleMatching(truth, pred, 3), [...expected]);
  });

  it('uses 4-token shingles by default, and compares tokens as written (case counts)', () => {
    close(shingleMatching('one two three four five six', 'one two three four five seven'), [0.5, 0.25, 0.25]);
    // "The" and "the" differ: one shingle of six is lost on each side.
    close(shingleMatching('The quick brown fox jumps over the lazy dog.', 'the quick brown fox jumps over the lazy dog'), [
      5 / 7,
      1 / 7,
      1 / 7,
    ]);
    close(shingleMatching('a b c', 'x y'), [0, 0.5, 0.5]);
  });
});

describe('over pages', () => {
  it('averages precision over pages that predicted text and recall over pages with truth, F1 from the two means', () => {
    const m = metricsFromTpFpFns([
      [0.5, 0.25, 0.25],
      [0, 0, 1],
      [0, 1, 0],
      [1, 0, 0],
      [0, 0, 0],
    ]);
    close([m.f1, m.precision, m.recall], [5 / 9, 5 / 9, 5 / 9]);
  });

  it('scores boilerplate kept, text lost and an empty prediction as evaluate.py does', () => {
    const pages = [
      {
        truth: 'Alpha beta gamma delta epsilon. Zeta eta theta.',
        pred: 'Menu Home Alpha beta gamma delta epsilon. Zeta eta theta. Share on Twitter',
      },
      { truth: 'One two three four five six seven eight', pred: 'One two three four' },
      { truth: 'short', pred: '' },
    ];
    const e = evaluate(pages, { nBootstrap: 50 });
    close(e.rows.flat(), [0.5, 0.5, 0, 0.2, 0, 0.8, 0, 0, 1]);
    close([e.f1, e.precision, e.recall, e.accuracy], [0.5217391304347827, 0.75, 0.4, 0]);
    expect(e.f1_std).toBeGreaterThan(0);
    // Seeded: the same pages give the same std every run.
    expect(evaluate(pages, { nBootstrap: 50 }).f1_std).toBe(e.f1_std);
  });

  it('counts a page as exact when its token sequence is the truth', () => {
    expect(accuracy('Hello, world!', 'hello world')).toBe(0);
    expect(accuracy('Hello, world!', '  Hello\nworld ')).toBe(1);
  });
});
