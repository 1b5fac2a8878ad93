import type { RootState } from '../library/index.js';

/** Whether a root answered with a page (a 2xx, directly or at the end of its redirects), did not, or is not settled yet. */
export type RootAnswer = { root: string; answer: 'page' | 'pending' } | { root: string; answer: 'none'; why: string };

const settled = (state: RootState['state']) => state === 'failed' || state === 'skipped';
const describe = (end: Omit<RootState, 'redirectedTo'>) =>
  end.state === 'done' && end.status !== undefined ? `HTTP ${end.status}` : `${end.state}${end.error ? `: ${end.error}` : ''}`;

/** A root's answer: a 404 or a 500 is an answer, but not a page; a redirect is judged by where it led. */
export function rootAnswer(root: RootState): RootAnswer {
  const end = root.redirectedTo ?? root;
  const via = root.redirectedTo ? ` (redirected to ${root.redirectedTo.url})` : '';
  if (end.state === 'done' && end.status !== undefined && end.status >= 200 && end.status < 300) return { root: root.url, answer: 'page' };
  if (settled(root.state) || settled(end.state) || (end.state === 'done' && end.status !== undefined)) {
    return { root: root.url, answer: 'none', why: `${describe(end)}${via}` };
  }
  // Queued, in flight, or a redirect whose target was not fetched yet (--max-pages): resume decides.
  return { root: root.url, answer: 'pending' };
}
