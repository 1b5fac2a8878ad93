import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import type { DomElement } from './dom-shapes.js';

/** The language a code block names: `language-x`/`lang-x` on it or its code, or Sphinx's `highlight-x` on a wrapper. */
function codeLanguage(pre: DomElement): string {
  const classes = [
    pre.getAttribute('class'),
    pre.querySelector('code')?.getAttribute('class'),
    pre.parentElement?.getAttribute('class'),
    pre.parentElement?.parentElement?.getAttribute('class'),
  ];
  for (const value of classes) {
    const match = /(?:^|\s)(?:language|lang|highlight)-([A-Za-z0-9_+#.-]+)/.exec(value ?? '');
    if (match && match[1] !== 'default') return match[1]!.replace(/^python3$/, 'python');
  }
  return '';
}

/** A fence longer than any run of backticks inside, so code holding ``` stays one block. */
function fenceFor(code: string): string {
  const longest = Math.max(0, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** The table a cell or row is in. */
function tableOf(node: DomElement): DomElement | null {
  return node.closest('table');
}

/** A table GFM can write: its first row is a heading (in <thead>, or all <th>); others are layout, read as text. */
function hasHeading(table: DomElement): boolean {
  const first = table.querySelector('tr');
  if (!first) return false;
  if (first.parentElement?.nodeName === 'THEAD') return true;
  const cells = [...first.querySelectorAll('td, th')];
  return cells.length > 0 && cells.every((cell) => cell.nodeName === 'TH');
}

const isLayoutTable = (node: DomElement) => {
  const table = node.nodeName === 'TABLE' ? node : tableOf(node);
  return table !== null && !hasHeading(table);
};

/** One converter, built once: GitHub-flavoured Markdown (tables, strikethrough, task lists), ATX headings, fenced code. */
export function createConverter(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  service.use(gfm);
  // Any <pre> is a code block (Sphinx and many highlighters put no <code> inside), fenced with its language.
  service.addRule('fencedPre', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const pre = node as unknown as DomElement;
      const code = (pre.textContent ?? '').replace(/\n$/, '');
      const fence = fenceFor(code);
      return `\n\n${fence}${codeLanguage(pre)}\n${code}\n${fence}\n\n`;
    },
  });
  // Heading permalinks (Sphinx's ¶, GitHub's anchors) are navigation, not content.
  service.addRule('permalinks', {
    filter: (node) =>
      node.nodeName === 'A' &&
      (/(?:^|\s)(headerlink|anchor|heading-anchor)(?:\s|$)/.test((node as unknown as DomElement).getAttribute('class') ?? '') ||
        /^[¶#§🔗]$/u.test((node.textContent ?? '').trim())),
    replacement: () => '',
  });
  // GFM keeps a table without a heading row as raw HTML; such tables lay a page out, so their cells are read as paragraphs.
  service.addRule('layoutTable', {
    filter: (node) => ['TABLE', 'TBODY', 'THEAD', 'TFOOT', 'TR'].includes(node.nodeName) && isLayoutTable(node as unknown as DomElement),
    replacement: (content) => `\n\n${content}\n\n`,
  });
  // A GFM cell is one line: Sphinx and others put <p>s (and lists) in cells, which left the row broken over lines.
  // Blocks in a cell are joined with <br>, lines within one with a space, and a | in its text is escaped.
  service.addRule('gfmCell', {
    filter: (node) => (node.nodeName === 'TD' || node.nodeName === 'TH') && !isLayoutTable(node as unknown as DomElement),
    replacement: (content, node) => {
      const line = content
        .trim()
        .split(/\n\s*\n/)
        .map((block) => block.replace(/\s*\n\s*/g, ' ').trim())
        .filter(Boolean)
        .join('<br>')
        .replace(/(?<!\\)\|/g, '\\|');
      // As the GFM plugin's own cells: the row's first opens with a bar.
      const first = Array.prototype.indexOf.call(node.parentNode?.childNodes ?? [], node) === 0;
      return `${first ? '| ' : ' '}${line} |`;
    },
  });
  service.addRule('layoutCell', {
    filter: (node) => (node.nodeName === 'TD' || node.nodeName === 'TH') && isLayoutTable(node as unknown as DomElement),
    replacement: (content) => `\n\n${content.trim()}\n\n`,
  });
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'form', 'button', 'select', 'input', 'textarea']);
  return service;
}
