// The corpora served as static files: the Python docs from Debian's python3.11-doc, with their
// ground truth (the HTML files reachable from index.html), and the synthetic site written to disk.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { Parser } from 'htmlparser2';
import { pageHtml, pagePath, ROBOTS_TXT } from './site.mjs';

export const PYTHON_DOCS_DIR = '/usr/share/doc/python3.11/html';
export const PYTHON_DOCS_INSTALL = 'apt-get install python3.11-doc';

/** Where a corpus page lives, as a URL path; "/x/" stands for "/x/index.html". */
const BASE = 'http://corpus.invalid';

function fileOf(dir, path) {
  const file = join(dir, ...decodeURIComponent(path).split('/').filter(Boolean));
  return file === dir || file.startsWith(dir + sep) ? file : undefined;
}

function isHtmlFile(file) {
  try {
    return /\.html?$/i.test(file) && statSync(file).isFile();
  } catch {
    return false;
  }
}

/** "/a/" and "/a/index.html" name the same file: the key is the file's path. */
export function pageKey(path) {
  return path.endsWith('/') ? `${path}index.html` : path;
}

/**
 * The HTML files reachable from `start` (a URL path) by following href attributes (a, area, link)
 * within the corpus, restricted to files that exist: what a complete crawl archives as pages.
 * Returns their URL paths, start first, in breadth-first order.
 */
export function reachableHtml(dir, start = '/index.html') {
  const seen = new Set([pageKey(start)]);
  const order = [pageKey(start)];
  for (let at = 0; at < order.length; at += 1) {
    const from = order[at];
    const file = fileOf(dir, from);
    const hrefs = [];
    const parser = new Parser({
      onopentag(name, attributes) {
        if ((name === 'a' || name === 'area' || name === 'link') && attributes.href) hrefs.push(attributes.href);
      },
    });
    parser.end(readFileSync(file, 'utf8'));
    for (const href of hrefs) {
      let url;
      try {
        url = new URL(href, BASE + from);
      } catch {
        continue;
      }
      if (url.origin !== BASE) continue;
      const key = pageKey(url.pathname);
      if (seen.has(key)) continue;
      const target = fileOf(dir, key);
      if (!target || !isHtmlFile(target)) continue;
      seen.add(key);
      order.push(key);
    }
  }
  return order;
}

/** The corpus directory and why it is unusable, if it is. */
export function findPythonDocs(dir = PYTHON_DOCS_DIR) {
  if (existsSync(join(dir, 'index.html'))) return { dir };
  return { dir, missing: `${dir}/index.html not found (${PYTHON_DOCS_INSTALL})` };
}

/** Writes the synthetic site as files under `dir` (index.html for "/"), absolute links on `origin`. */
export function writeSyntheticSite(dir, pages, seed, origin) {
  writeFileSync(join(dir, 'robots.txt'), ROBOTS_TXT);
  const made = new Set();
  let bytes = 0;
  for (let i = 0; i < pages; i += 1) {
    const path = pagePath(i);
    const file = i === 0 ? join(dir, 'index.html') : join(dir, ...path.split('/').filter(Boolean));
    const parent = file.slice(0, file.lastIndexOf(sep));
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    const html = pageHtml(i, pages, seed, origin);
    writeFileSync(file, html);
    bytes += Buffer.byteLength(html);
  }
  return bytes;
}
