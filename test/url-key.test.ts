import { describe, expect, it } from 'vitest';
import { urlKey } from '../src/url/url-key.js';

/** Keys are taken of WHATWG output, as the crawler does. */
const key = (input: string) => urlKey(new URL(input).href);

describe('urlKey', () => {
  it('gives an IRI and its percent-encoded spellings one key', () => {
    const iri = key('http://h/文档/?q=文');
    expect(iri).toBe('http://h/%E6%96%87%E6%A1%A3/?q=%E6%96%87');
    expect(key('http://h/%e6%96%87%e6%a1%a3/?q=%e6%96%87')).toBe(iri);
    expect(key('http://h/%E6%96%87%e6%A1%a3/?q=%E6%96%87')).toBe(iri);
  });

  it('upper-cases the hex of escapes it keeps, in path, query and userinfo', () => {
    expect(key('http://us%c3%a9r:p%c3%a5ss@h/a%2fb?x=%2f%c3%a9')).toBe('http://us%C3%A9r:p%C3%A5ss@h/a%2Fb?x=%2F%C3%A9');
  });

  it('decodes escapes of unreserved characters in path and query', () => {
    expect(key('http://h/%41%62%30%2D%2e%5F%7e?%41=%7E')).toBe('http://h/Ab0-._~?A=~');
    expect(key('http://h/%7Euser/')).toBe(key('http://h/~user/'));
  });

  it('leaves reserved escapes, spaces and plus signs as they are', () => {
    expect(key('http://h/a%2Fb%3F%23%25%20+?q=%2F%3F%23%25%26%3D+%20')).toBe('http://h/a%2Fb%3F%23%25%20+?q=%2F%3F%23%25%26%3D+%20');
    expect(key('http://h/a%2fb')).not.toBe(key('http://h/a/b'));
    expect(key('http://h/?q=a%2Bb')).not.toBe(key('http://h/?q=a+b'));
  });

  it('does not decode in userinfo, and leaves host and port alone', () => {
    expect(key('http://%41:%41@h/')).toBe('http://%41:%41@h/');
    expect(key('http://xn--bcher-kva.example:8080/%41')).toBe('http://xn--bcher-kva.example:8080/A');
    expect(key('http://Bücher.example/')).toBe('http://xn--bcher-kva.example/');
  });

  it('is idempotent, even around stray percent signs', () => {
    const inputs = [
      'http://h/%e6%96%87%41?%7e=%2f',
      'http://h/%%34%31',
      'http://h/%4%31',
      'http://h/%%41%42?%%36%31',
      'http://h/%zz%41',
      'http://h/100%',
    ];
    for (const input of inputs) {
      const once = key(input);
      expect(urlKey(once), input).toBe(once);
    }
    // A decoded hex digit right after a stray '%' would forge a new escape, so that one escape is kept.
    expect(key('http://h/%%34%31')).toBe('http://h/%%341');
    expect(key('http://h/%%61%62')).toBe('http://h/%%61b');
    expect(key('http://h/%%6a')).toBe('http://h/%j');
    expect(key('http://h/%4%31')).toBe('http://h/%4%31');
    expect(key('http://h/%zz%41')).toBe('http://h/%zzA');
  });

  it('produces a URL that WHATWG parses back to itself', () => {
    for (const input of ['http://h/文档/?q=%7e', 'https://u:p@h:1/%41/%2e%2e%2fx?%61#f']) {
      const once = key(input);
      expect(new URL(once).href).toBe(once);
    }
  });

  it('returns a string it cannot split unchanged', () => {
    expect(urlKey('not a url %41')).toBe('not a url %41');
  });
});
