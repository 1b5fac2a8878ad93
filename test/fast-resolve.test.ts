import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fastNormalize, LinkResolver } from '../src/url/fast-resolve.js';
import { normalizeUrl } from '../src/url/normalize-url.js';
import { mulberry32 } from './support/prng.js';

/** [base, hrefs] groups: the Python docs' links (bases on 127.0.0.1:8000), the tests' links, tricky spellings (scripts/links/collect-hrefs.mjs). */
const corpus = JSON.parse(readFileSync(new URL('./fixtures/hrefs.json', import.meta.url), 'utf8')) as [string, string[]][];

/** Every pair where the resolver and the WHATWG path disagree, as [base, href, fast, slow]. */
function disagreements(pairs: Iterable<[string, string]>): unknown[] {
  const out: unknown[] = [];
  const resolvers = new Map<string, LinkResolver>();
  for (const [base, href] of pairs) {
    let resolver = resolvers.get(base);
    if (!resolver) resolvers.set(base, (resolver = new LinkResolver(base)));
    const slow = normalizeUrl(href, base);
    const fast = resolver.normalize(href);
    // Strict: an absent pathKey is not an undefined one.
    if (!isDeepStrictEqual(fast, slow)) out.push([base, href, fast, slow]);
  }
  return out;
}

function* corpusPairs(): Generator<[string, string]> {
  for (const [base, hrefs] of corpus) for (const href of hrefs) yield [base, href];
}

describe('LinkResolver', () => {
  it('normalises every link of the corpus exactly as the WHATWG parser does', () => {
    const pairs = [...corpusPairs()];
    expect(pairs.length).toBeGreaterThan(3000);
    expect(disagreements(pairs)).toEqual([]);
    for (const [base, href] of pairs.slice(0, 200)) expect(fastNormalize(href, base)).toStrictEqual(normalizeUrl(href, base));
  });

  it('takes the fast path for nearly all http(s) and relative links of real pages', () => {
    let links = 0;
    let fast = 0;
    for (const [base, href] of corpusPairs()) {
      if (!base.startsWith('http://127.0.0.1:8000/') || /^(?!https?:)[a-z][a-z\d+.-]*:/i.test(href)) continue;
      links++;
      if (new LinkResolver(base).tryFast(href)) fast++;
    }
    expect(links).toBeGreaterThan(2000);
    expect(fast / links).toBeGreaterThan(0.99);
  });

  it('agrees with the WHATWG parser on random links made of URL-significant characters', () => {
    const random = mulberry32(0x11e4);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const starts = ['', '', '', '/', '//', './', '../', '?', '#', 'http://', 'https://', 'HTTP://', 'http:', '\\', ' '];
    const hosts = [
      'h',
      'H',
      'a.b',
      'a..b',
      'h.',
      '1.2.3.4',
      '1.2.3',
      '1.2.3.04',
      '0x1',
      'a.1',
      'xn--a',
      'h:80',
      'h:443',
      'h:',
      'h:0080',
      'h:99999',
      'u@h',
      '[::1]',
      'é',
      'h-',
    ];
    const alphabet = [
      ...'aZ09-._~!$&\'()*+,;=:@/?#%[]\\ \t\n|^`{}"<>',
      '%2e',
      '%2E',
      '%41',
      '%7e',
      '%zz',
      '..',
      '.',
      '/./',
      '/../',
      '/.a',
      '..a',
      'é',
      '文',
      '😀',
      '\uD800',
      '\uFEFF',
      '\u0000',
      '\uFFFF',
    ];
    const bases = [
      'http://h/',
      'http://h/a/b/c',
      'https://h:8443/a/?x#y',
      'http://h/a?',
      'http://h/.a/b',
      'http://127.0.0.1:8000/library/os.html',
      'http://u:p@h/a',
    ];
    // Half the links use only characters the fast path accepts, so both paths are exercised.
    const plain = alphabet.filter((piece) => /^(?:[\w\-.~!$&()*+,;=:@/?#%]|[^\0-\x7f])+$/.test(piece));
    const pairs: [string, string][] = [];
    let fast = 0;
    let fastIris = 0;
    for (let n = 0; n < 20_000; n++) {
      const pieces = n % 2 ? alphabet : plain;
      let href = pick(starts);
      if (href.endsWith('//')) href += pick(hosts);
      const length = Math.floor(random() * 12);
      for (let i = 0; i < length; i++) href += pick(pieces);
      const base = pick(bases);
      if (new LinkResolver(base).tryFast(href)) {
        fast++;
        if (/[^\0-\x7f]/.test(href.split('#', 1)[0]!)) fastIris++;
      }
      pairs.push([base, href]);
    }
    expect(disagreements(pairs)).toEqual([]);
    expect(fast).toBeGreaterThan(4_000);
    expect(fastIris).toBeGreaterThan(500);
  });
});
