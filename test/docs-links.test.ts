import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, headingAnchors, linkTargets, ROOT } from './support/markdown.js';

// Every relative link of the README and the manual leads somewhere: the file exists, and an anchor names a
// heading of the page it points to (as GitHub makes anchors).

describe('the links between the README and docs/', () => {
  for (const { path, text } of docPages()) {
    it(`resolve from ${path}`, () => {
      const broken: string[] = [];
      for (const target of linkTargets(text)) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file ? join(ROOT, dirname(path), decodeURIComponent(file)) : join(ROOT, path);
        if (!existsSync(resolved)) {
          broken.push(`${target}: no file ${relative(ROOT, resolved)}`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) {
          broken.push(`${target}: an anchor into a file that is not a page`);
          continue;
        }
        if (!headingAnchors(readFileSync(resolved, 'utf8')).has(anchor))
          broken.push(`${target}: no heading #${anchor} in ${relative(ROOT, resolved)}`);
      }
      expect(broken).toEqual([]);
    });
  }

  it('reach every page of the manual from the README, directly or through docs/README.md', () => {
    const linked = new Set<string>();
    for (const { path, text } of docPages().filter((page) => page.path === 'README.md' || page.path === 'docs/README.md')) {
      for (const target of linkTargets(text)) linked.add(relative(ROOT, join(ROOT, dirname(path), target.split('#')[0]!)));
    }
    const pages = docPages()
      .map((page) => page.path)
      .filter((page) => page.startsWith('docs/') && page !== 'docs/README.md');
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});
