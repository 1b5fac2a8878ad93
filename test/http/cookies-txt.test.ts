import { describe, expect, it } from 'vitest';
import { CrawlCookies } from '../../src/http/cookie-jar.js';
import { parseCookiesTxt } from '../../src/http/cookies-txt.js';

const FILE = [
  '# Netscape HTTP Cookie File',
  '.example.org\tTRUE\t/\tFALSE\t0\twide\t1',
  'www.example.org\tFALSE\t/app\tTRUE\t4102444800\tnarrow\t2',
  '#HttpOnly_example.org\tFALSE\t/\tFALSE\t0\thidden\t3',
  'example.org\tFALSE\t/\tFALSE\t1\told\t4',
].join('\r\n');

describe('cookies.txt', () => {
  it('reads the seven fields, the subdomain flag and curl’s #HttpOnly_ prefix', () => {
    const lines = parseCookiesTxt(FILE, 'c.txt');
    expect(lines.map((line) => [line.domain, line.includeSubdomains, line.path, line.secure, line.httpOnly, line.name])).toEqual([
      ['.example.org', true, '/', false, false, 'wide'],
      ['www.example.org', false, '/app', true, false, 'narrow'],
      ['example.org', false, '/', false, true, 'hidden'],
      ['example.org', false, '/', false, false, 'old'],
    ]);
  });

  it('matches cookies to URLs by domain, path, Secure and expiry', () => {
    const jar = new CrawlCookies();
    jar.load(parseCookiesTxt(FILE, 'c.txt'));
    expect(jar.header('http://sub.example.org/')).toBe('wide=1');
    expect(jar.header('http://example.org/')).toBe('wide=1; hidden=3');
    expect(jar.header('https://www.example.org/app/x')).toBe('narrow=2; wide=1');
    expect(jar.header('http://www.example.org/app/x')).toBe('wide=1');
    expect(jar.header('http://other.test/')).toBeUndefined();
  });

  it('names the line that is not in the format', () => {
    expect(() => parseCookiesTxt('a\tb\tc\n', 'c.txt')).toThrow(
      expect.objectContaining({ code: 'BAD_COOKIE_FILE', message: expect.stringContaining('c.txt line 1') }),
    );
  });
});
