#!/usr/bin/env node
// Writes test/fixtures/hrefs.json: (base, href) pairs the link resolver is checked on. Real links
// from a directory of HTML (the Python docs: Debian's python3.11-doc), the links written in the test
// files, and a generated set of tricky spellings. Run after `npm run build`:
//   node scripts/links/collect-hrefs.mjs [/usr/share/doc/python3.11/html]
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractPage } from '../../dist/html/index.js';
import { walk } from './walk-files.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCS = process.argv[2] ?? '/usr/share/doc/python3.11/html';
const ORIGIN = 'http://127.0.0.1:8000/';

const withoutFragment = (href) => href.split('#', 1)[0];
const depth = (base) => base.split('/').length;

/** base -> hrefs, in the order found. */
const groups = new Map();
const add = (base, href) => {
  if (!groups.has(base)) groups.set(base, []);
  groups.get(base).push(href);
};

// Each distinct link (fragment aside) once with the first page it is on; a relative one also with the
// first page at another directory depth, where it resolves differently. Absolute links ignore the base.
// Absolute links are many and alike (a source link per page), so a few per origin or scheme are kept.
const firstBase = new Map();
const otherDepth = new Set();
const perOrigin = new Map();
const PER_ORIGIN = 40;
const takeAbsolute = (raw) => {
  const origin = /^[a-z][a-z\d+.-]*:(\/\/[^/?#]*)?/i.exec(raw)?.[0];
  if (origin === undefined) return true;
  const count = perOrigin.get(origin) ?? 0;
  perOrigin.set(origin, count + 1);
  return count < PER_ORIGIN;
};
for (const file of walk(DOCS, '.html')) {
  const base = ORIGIN + relative(DOCS, file);
  extractPage(readFileSync(file, 'utf8'), (href) => {
    const raw = withoutFragment(href);
    const first = firstBase.get(raw);
    if (first === undefined) {
      firstBase.set(raw, base);
      if (takeAbsolute(raw)) add(base, href);
    } else if (!otherDepth.has(raw) && !/^[a-z][a-z\d+.-]*:/i.test(raw) && depth(first) !== depth(base)) {
      otherDepth.add(raw);
      add(base, href);
    }
  });
}

// Links written in the tests' HTML, against a page in a directory and the root.
const testHrefs = new Set();
for (const file of walk(join(REPO, 'test'), '.ts')) {
  for (const [, , value] of readFileSync(file, 'utf8').matchAll(/(?:href|src|srcset|data|poster)=(["'])([^"'$`]*)\1/g))
    testHrefs.add(value);
}
for (const base of ['http://127.0.0.1:40123/dir/page.html?x=1', 'http://127.0.0.1:40123/']) for (const href of testHrefs) add(base, href);

// Tricky spellings, each against a few kinds of base.
const PIECES = {
  dots: [
    '.',
    '..',
    './',
    '../',
    '../../../../x',
    '/..',
    '/../a',
    'a/./b/../c',
    'a/.',
    'a/..',
    '.a/..b/...',
    '%2e',
    '%2E%2e/x',
    '.%2e/x',
    'a/%2e%2E',
    '..%2f',
    '.well-known/../x',
    '/a/.b/../c',
    '..a/../b',
  ],
  authority: [
    '//h',
    '//h/',
    '///h',
    '//H.EXAMPLE:80/a',
    '//h:',
    '//h:0080/',
    '//h:65536/',
    '//u:p@h/',
    '//@h/',
    'http://h',
    'http://h?q',
    'HTTP://H/',
    'https://h:443/',
    'https://h:444',
    'http:/h',
    'http:h',
    'https:',
    'http://h./',
    'http://h..x/',
    'http://.h/',
    'http://-h-/',
    'http://xn--bcher-kva.example/',
    'http://xn--a/',
    'http://Bücher.example/',
    'http://[::1]:8080/',
    'http://[0:0::1]/',
    'http://127.1/',
    'http://0x7f.0.0.1/',
    'http://010.0.0.1/',
    'http://1.2.3.4./',
    'http://256.0.0.1/',
    'http://1.2.3/',
    'http://h.1/',
    'http://h.0x1/',
    'http://1h/',
    'http://a_b/',
    'http://a%41/',
    'http://h:1:2/',
    'http://h:8o/',
  ],
  query: ['?', '?q', '??', '?a=1&b=2', "?a='b'", '?a b', '?a"b', '?<>', '?é', '?a#b', 'x?y?z', '/?%41%2f', '?%zz'],
  fragment: ['#', '#f', '#a b', 'a#', 'a#b#c', '/x#?y', '?q#f'],
  escapes: ['%41', '%7e', '%7E', '%2f', '%2F', '%zz', '%', '100%', '%%41', 'a%2Fb', '%E6%96%87', '%e6%96%87', '/%c3%a9?%C3%A9'],
  unicode: ['é', 'é?é', '文档/', '/\u{1F600}', '\uD800', 'Ω#Ω', 'ｆｕｌｌ', 'http://ex\u00e4mple/', '\u00a0a', 'a\u00a0', '\u200b'],
  whitespace: [
    '',
    ' ',
    '  a  ',
    '\ta',
    'a\tb',
    'a\nb',
    'a\rb',
    '\na\n',
    'a b',
    'a\u000cb',
    '\u0000a',
    'a\u0000',
    '\u0001/x',
    'http://h/\ta',
    'ht\ttp://h/',
    'http://h\n/',
  ],
  backslashes: ['\\', '\\\\h\\x', 'a\\b', '/\\h', '\\/h', 'http:\\\\h\\a', '..\\x'],
  schemes: [
    'javascript:void(0)',
    'JavaScript:x',
    'mailto:a@b',
    'data:,x',
    'file:///etc/passwd',
    'ftp://h/',
    'ws://h/',
    'a:b',
    '1a:b',
    'a+b:c',
    'c:/x',
    'c|/x',
    'foo',
    ':',
    ':a',
    'a:',
    './a:b',
    'a/b:c',
  ],
  characters: [
    'a|b',
    'a^b',
    'a`b',
    'a{b}',
    'a[b]',
    'a<b>',
    'a"b',
    "a'b",
    'a;b=c,d',
    '@',
    '~user/',
    '!$&()*+,;=:@',
    'a//b',
    '//',
    '/a//../b',
  ],
};
const TRICKY_BASES = [
  'http://127.0.0.1:8001/a/b/c.html',
  'https://Example.COM:443/a/?q=1#f',
  'http://h/',
  'http://u:p@h/a/b',
  'http://[::1]:8080/x/',
  'http://h/%7e/a%2Fb/c',
  'http://h/a?',
  'http://h/.well-known/x/',
];
for (const base of TRICKY_BASES) for (const list of Object.values(PIECES)) for (const href of list) add(base, href);

const lines = [...groups].map(([base, hrefs]) => JSON.stringify([base, hrefs]));
const out = join(REPO, 'test', 'fixtures', 'hrefs.json');
writeFileSync(out, `[\n${lines.join(',\n')}\n]\n`);
const pairs = [...groups.values()].reduce((n, hrefs) => n + hrefs.length, 0);
console.error(`${out}: ${pairs} pairs over ${groups.size} bases, ${statSync(out).size} bytes`);
