import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { surt } from '../../src/url/surt.js';

// Keys as pywb, cdxj-indexer and OutbackCDX compute them: each row of the fixture was
// computed by Python's surt itself (its header says which version), not by this code.

const fixture = JSON.parse(readFileSync(new URL('../fixtures/surt-keys.json', import.meta.url), 'utf8')) as {
  computedBy: string;
  rows: Array<[string, string]>;
};

describe('surt', () => {
  it('the fixture says what computed it', () => {
    expect(fixture.computedBy).toMatch(/^internetarchive\/surt \d/);
    expect(fixture.rows.length).toBeGreaterThanOrEqual(60);
  });

  it.each(fixture.rows)('%s', (url, key) => {
    expect(surt(url)).toBe(key);
  });
});
