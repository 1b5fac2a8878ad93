// Chinese and Japanese put no spaces between words, so the word index would hold a whole run of them as
// one token. Intl.Segmenter (ICU's dictionary) splits such a run into words; joined with U+200B (zero
// width space, which unicode61 takes as a separator and a reader never sees) the text stays as it was
// to the eye, so a snippet of it is the page's own text once the marks are taken out again.

/** Between two words of a run: a separator for unicode61, invisible in any text shown. */
export const WORD_BREAK = '\u200b';

/** Han (with 々〆〇) and kana: the scripts written without spaces that ICU's dictionary segments. Hangul is written with spaces. */
const isRunChar = (code: number): boolean =>
  (code >= 0x3005 && code <= 0x3007) ||
  (code >= 0x3040 && code <= 0x30ff) ||
  (code >= 0x3400 && code <= 0x4dbf) ||
  (code >= 0x4e00 && code <= 0x9fff) ||
  (code >= 0xf900 && code <= 0xfaff) ||
  (code >= 0x20000 && code <= 0x3134f);
const HAS_RUN = /[\u3005-\u3007\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{3134f}]/u;
const KANA = /[\u3040-\u30ff]/u;
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * Characters segmented per call: ICU through V8 costs more per character on a long string and more per call
 * on short ones. A 15,000-character Chinese page (scripts/bench/cjk-words-cost.mjs): whole, 62 ms of CPU;
 * run by run, 14.8 ms; in pieces of about 256, 8.7 ms.
 */
const PIECE = 256;

const segmenters = new Map<string, Intl.Segmenter>();
const segmenterFor = (locale: string): Intl.Segmenter => {
  let segmenter = segmenters.get(locale);
  if (!segmenter) segmenters.set(locale, (segmenter = new Intl.Segmenter(locale, { granularity: 'word' })));
  return segmenter;
};

/** 'ja' when the text has kana, else 'zh' (ICU's Chinese and Japanese dictionary is one; the locale only tunes it). */
export const cjkLocaleOf = (text: string): string => (KANA.test(text) ? 'ja' : 'zh');

/**
 * The text with each run of Han and kana split into its words, WORD_BREAK between them; everything else
 * as it was. Pieces end where no run goes on, and punctuation, spaces and other scripts end words anyway,
 * so a run is cut as it is alone: a query's run as the same run in a page.
 */
export function cjkWords(text: string, locale: string = cjkLocaleOf(text)): string {
  if (!HAS_RUN.test(text)) return text;
  const segmenter = segmenterFor(locale);
  let out = '';
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + PIECE);
    while (end < text.length && (isRunChar(text.codePointAt(end)!) || isLowSurrogate(text.charCodeAt(end)))) end += 1;
    let afterRun = false;
    for (const { segment } of segmenter.segment(text.slice(start, end))) {
      if (afterRun && isRunChar(segment.codePointAt(0)!)) out += WORD_BREAK;
      out += segment;
      const last = segment.length >= 2 && isLowSurrogate(segment.charCodeAt(segment.length - 1)) ? segment.length - 2 : segment.length - 1;
      afterRun = isRunChar(segment.codePointAt(last)!);
    }
    start = end;
  }
  return out;
}

/** Text as shown: the word breaks cjkWords put in, taken out. */
export const withoutWordBreaks = (text: string): string => text.replaceAll(WORD_BREAK, '');
