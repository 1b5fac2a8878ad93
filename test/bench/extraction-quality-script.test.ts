// The scoring script end to end, on a directory shaped like the benchmark's checkout (html/<id>.html.gz and
// ground-truth.json) with two pages of our own: it runs Readability, scores against the truth, and refuses bad input
// with one line.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/archive.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/bench/extraction-quality.mjs', import.meta.url));

const ARTICLE = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot'].map(
  (w, i) => `${w} is the ${i + 1}th point of this long article, and it explains ${w} in full sentences, with commas.`,
);
const page = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>
<article><h1>${title}</h1>${ARTICLE.map((p) => `<p>${p}</p>`).join('\n')}</article>
<footer>Copyright Example Corp. Subscribe to our newsletter for more stories.</footer></body></html>`;
const truthText = ARTICLE.join('\n');

const tmp = tempDir();
const data = tmp.path('benchmark');

beforeAll(() => {
  mkdirSync(`${data}/html`, { recursive: true });
  const truth: Record<string, { articleBody: string; url: string }> = {};
  for (const id of ['aaa', 'bbb']) {
    writeFileSync(`${data}/html/${id}.html.gz`, gzipSync(page(`Story ${id}`)));
    truth[id] = { articleBody: truthText, url: `https://example.com/${id}` };
  }
  writeFileSync(`${data}/ground-truth.json`, JSON.stringify(truth));
  writeFileSync(tmp.path('broken.mjs'), "throw new Error('not built yet');\n");
  // A prediction file in the benchmark's wrapped format: one page right, one page empty.
  writeFileSync(
    tmp.path('pred.json'),
    JSON.stringify({ version: '1.2', output: { aaa: { articleBody: truthText }, bbb: { articleBody: '' } } }),
  );
});
afterAll(() => tmp.cleanup());

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [SCRIPT, ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('extraction-quality.mjs', () => {
  it('runs Readability over every page and scores its text against the truth, with a row per page', async () => {
    const r = await run(['--data', data, '--extractor', 'readability', '--json', '--write-predictions', tmp.path('out.json')]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ extractor: 'readability', pages: 2, errors: 0 });
    expect(report.version).toMatch(/^@mozilla\/readability \d/);
    // The navigation and footer are out, the article is in; the <h1> title is the only extra text.
    expect(report.recall).toBe(1);
    expect(report.precision).toBeGreaterThan(0.9);
    expect(report.rows.map((row: { id: string }) => row.id)).toEqual(['aaa', 'bbb']);
    const written = JSON.parse(readFileSync(tmp.path('out.json'), 'utf8'));
    expect(written.output.aaa.articleBody).toContain('Foxtrot is the 6th point');
    expect(written.output.aaa.articleBody).not.toContain('newsletter');
  });

  it('runs defuddle and scores the text of its content', async () => {
    const r = await run(['--data', data, '--extractor', 'defuddle', '--json', '--write-predictions', tmp.path('defuddle.json')]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ extractor: 'defuddle', pages: 2, errors: 0, recall: 1 });
    expect(report.version).toMatch(/^defuddle \d+\.\d+\.\d+, linkedom \d/);
    const written = JSON.parse(readFileSync(tmp.path('defuddle.json'), 'utf8'));
    expect(written.output.bbb.articleBody).toContain('Foxtrot is the 6th point');
    expect(written.output.bbb.articleBody).not.toContain('newsletter');
  });

  it('scores a prediction file in the benchmark format: an empty page counts in recall, not in precision', async () => {
    const r = await run(['--data', data, '--predictions', tmp.path('pred.json')]);
    expect(r.code, r.stderr).toBe(0);
    const [header, scores, version] = r.stdout.trim().split('\n');
    expect(header).toMatch(/^extractor\s+F1\s+precision\s+recall\s+accuracy\s+pages$/);
    // precision: mean over the one page that predicted text = 1; recall: (1 + 0) / 2; F1 = 2/3.
    expect(scores).toMatch(/ 0\.667 ± 0\.\d{3} {2}1\.000 ± 0\.000 {2}0\.500 ± 0\.\d{3} {2}0\.500 ± 0\.\d{3} {2}2$/);
    expect(version).toBe('version: 1.2');
  });

  it.each([
    [[], /--data DIR is required/],
    [['--data', tmp.dir], /has no ground-truth\.json and html\/: pass a checkout of the benchmark/],
    [['--data', data, '--extractor', 'nope'], /--extractor must be readability, defuddle or markdown/],
    [['--data', data, '--extractor', 'markdown', '--module', tmp.path('missing.js')], /missing\.js does not exist: run npm run build/],
    [['--data', data, '--extractor', 'markdown', '--module', tmp.path('broken.mjs')], /broken\.mjs could not be loaded: not built yet/],
    [['--data', data, '--predictions', tmp.path('none.json')], /none\.json does not exist/],
    [['--data', data, '--limit', '0'], /--limit must be an integer >= 1/],
  ])('refuses %j with one line and exit 2', async (args, phrase) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^extraction-quality: /);
    expect(lines[0]).toMatch(phrase);
  });

  it('scores the .text of a module exporting pageMarkdown', async () => {
    writeFileSync(
      tmp.path('fake-markdown.mjs'),
      `export function pageMarkdown(html, url) { return { title: null, markdown: '', text: ${JSON.stringify(truthText)} }; }`,
    );
    const r = await run([
      '--data',
      data,
      '--extractor',
      'markdown',
      '--module',
      tmp.path('fake-markdown.mjs'),
      '--json',
      '--n-bootstrap',
      '10',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ extractor: 'markdown', f1: 1, precision: 1, recall: 1, accuracy: 1 });
  });
});
