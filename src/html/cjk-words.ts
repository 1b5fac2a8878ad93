// Chinese and Japanese put no spaces between words, so the word index would hold a whole run of them as
// one token. Intl.Segmenter (ICU's dictionary) splits such a run into words; joined with U+200B (zero
// width space, which unicode61 takes as a separator and a reader never sees) the text stays as it was
// to the eye, so a snippet of it is the page's own text once the marks are taken out again.

/** Between two words of a run: a separator for unicode61, invisible in any text shown. */
export const WORD_BREAK = '\u200b';

/** Han (with 々〆〇) and kana: the scripts written without spaces that ICU's dictionary segments. Hangul is written with spaces. */
const RUN = /[\u3005-\u3007\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{3134f}]+/gu;
const KANA = /[\u3040-\u30ff]/u;

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
 * as it was. A run is segmented on its own (punctuation and spaces end words anyway), so a query's run is
 * segmented as the same run in a page is.
 */
export function cjkWords(text: string, locale: string = cjkLocaleOf(text)): string {
  const segmenter = segmenterFor(locale);
  return text.replace(RUN, (run) => {
    if (run.length === 1) return run;
    let out = '';
    for (const { segment } of segmenter.segment(run)) out += out === '' ? segment : WORD_BREAK + segment;
    return out;
  });
}

/** Text as shown: the word breaks cjkWords put in, taken out. */
export const withoutWordBreaks = (text: string): string => text.replaceAll(WORD_BREAK, '');
