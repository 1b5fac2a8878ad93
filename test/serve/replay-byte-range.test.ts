import { describe, expect, it } from 'vitest';
import { parseRange } from '../../src/serve/replay/byte-range.js';

describe('parseRange', () => {
  it('reads the three forms of one bytes range', () => {
    expect(parseRange('bytes=2-5', 10)).toEqual({ kind: 'part', start: 2, end: 5 });
    expect(parseRange('bytes=7-', 10)).toEqual({ kind: 'part', start: 7, end: 9 });
    expect(parseRange('bytes=-3', 10)).toEqual({ kind: 'part', start: 7, end: 9 });
    expect(parseRange('bytes=-30', 10)).toEqual({ kind: 'part', start: 0, end: 9 });
    expect(parseRange('bytes=5-100', 10)).toEqual({ kind: 'part', start: 5, end: 9 });
  });

  it('finds no byte past the end', () => {
    expect(parseRange('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
  });

  it('answers with the whole body what it does not serve', () => {
    for (const header of [undefined, 'bytes=0-1,4-5', 'items=0-1', 'bytes=5-2', 'bytes=-', 'garbage']) {
      expect(parseRange(header, 10)).toEqual({ kind: 'whole' });
    }
  });
});
