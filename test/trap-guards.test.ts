import { describe, expect, it } from 'vitest';
import { trapReason } from '../src/pipeline/trap-guards.js';

const settings = { maxUrlLength: 8 * 1024, maxPathRepeats: 3 };

describe('trapReason', () => {
  it('skips URLs longer than the limit, with the length', () => {
    const long = `http://site/${'x'.repeat(100 * 1024)}`;
    expect(trapReason(long, settings)).toEqual({ code: 'url_too_long', message: expect.stringContaining(`${long.length} characters`) });
    expect(trapReason(`http://site/${'x'.repeat(8000)}`, settings)).toBeUndefined();
  });

  it('skips paths whose segments repeat more than 3 times in a row, for runs of 1 to 5 segments', () => {
    expect(trapReason('http://site/a/a/a/a', settings)).toMatchObject({ code: 'trap_repeated_path' });
    expect(trapReason('http://site/x/a/b/a/b/a/b/a/b/y', settings)).toMatchObject({ code: 'trap_repeated_path' });
    expect(trapReason('http://site/1/2/3/4/5/1/2/3/4/5/1/2/3/4/5/1/2/3/4/5', settings)).toMatchObject({ code: 'trap_repeated_path' });
  });

  it('lets ordinary and thrice-repeated paths through', () => {
    expect(trapReason('http://site/a/b/a/b/a/b', settings)).toBeUndefined();
    expect(trapReason('http://site/2024/01/01/post', settings)).toBeUndefined();
    expect(trapReason('http://site/a/x/a/y/a/z/a', settings)).toBeUndefined();
    expect(trapReason('http://site/', settings)).toBeUndefined();
  });

  it('judges a path with exactly as many segments as the limit allows, and one more', () => {
    expect(trapReason('http://site/a/a/a', settings)).toBeUndefined();
    expect(trapReason('http://site/a/a/a/', settings)).toBeUndefined();
    expect(trapReason('http://site/a/a/a?x=/a/a', settings)).toBeUndefined();
    expect(trapReason('http://site/a/a/a', { ...settings, maxPathRepeats: 2 })).toMatchObject({ code: 'trap_repeated_path' });
    expect(trapReason('http://site//a//a//a//a', settings)).toMatchObject({ code: 'trap_repeated_path' });
  });

  it('can be lifted with 0', () => {
    expect(trapReason('http://site/a/a/a/a/a/a', { ...settings, maxPathRepeats: 0 })).toBeUndefined();
  });
});
