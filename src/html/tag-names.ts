/** Tag and attribute names matched in place in the document, against short tables of the wanted ones. */

import type { DocumentWindow } from './document-window.js';

export function byLength(names: string[]): string[][] {
  const table: string[][] = [];
  for (const name of names) (table[name.length] ??= []).push(name);
  return table;
}

/**
 * Which of `names` (lower-case, grouped by length) `doc` spells from `start` to `end` in any ASCII
 * case, or ''. Compared in place: most names are not wanted, and slicing and lower-casing each one was
 * a measurable share of parsing. `| 0x20` folds only A-Z onto a-z among the characters compared.
 */
export function nameAt(doc: DocumentWindow, start: number, end: number, names: string[][]): string {
  const candidates = names[end - start];
  if (candidates === undefined) return '';
  // A name cut by the end of the previous piece is rare; only it is sliced.
  let html = doc.current;
  let at = start - doc.currentStart;
  if (at < 0) {
    html = doc.slice(start, end);
    at = 0;
  }
  next: for (const name of candidates) {
    for (let i = 0; i < name.length; i++) {
      const want = name.charCodeAt(i);
      const c = html.charCodeAt(at + i);
      if (c !== want && !(want >= 0x61 && want <= 0x7a && (c | 0x20) === want)) continue next;
    }
    return name;
  }
  return '';
}
