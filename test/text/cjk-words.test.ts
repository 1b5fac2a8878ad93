// Chinese and Japanese text split into words for the CJK words index: the same cut in pieces as run by run,
// so a query's run is cut as the same run in a long page; other text as it was.
import { describe, expect, it } from 'vitest';
import { cjkWords, withoutWordBreaks, WORD_BREAK } from '../../src/text/index.js';

const words = (text: string, locale?: string) => cjkWords(text, locale).split(WORD_BREAK);

/** Each run of Han and kana segmented alone: what cjkWords must give, however it groups its calls to ICU. */
function runByRun(text: string, locale: string): string {
  const segmenter = new Intl.Segmenter(locale, { granularity: 'word' });
  return text.replace(/[\u3005-\u3007\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{3134f}]+/gu, (run) =>
    [...segmenter.segment(run)].map(({ segment }) => segment).join(WORD_BREAK),
  );
}

describe('cjkWords', () => {
  it('splits running Chinese and Japanese into words, punctuation kept in place', () => {
    expect(words('我们在山上的竹林里散步。', 'zh')).toEqual(['我们', '在', '山上', '的', '竹林', '里', '散步。']);
    expect(words('今日の東京都は晴れ、明日の天気は雨。')).toEqual([
      '今日',
      'の',
      '東京',
      '都',
      'は',
      '晴れ、明日',
      'の',
      '天気',
      'は',
      '雨。',
    ]);
  });

  it('leaves text without Han or kana as it is, Korean and Latin included', () => {
    for (const text of ['The weather in Tokyo.', '오늘 한국 날씨는 맑습니다.', '']) expect(cjkWords(text)).toBe(text);
    expect(cjkWords('sys.path 東京 f-string')).toBe('sys.path 東京 f-string');
  });

  it('cuts a long text, whatever falls on the edges of the pieces it is read in, as each run alone', () => {
    const sentence = '今日の東京都は晴れですが、明日の天気は雨になるでしょう。𠮷野家の牛丼を食べた。竹林を歩きました。';
    for (let pad = 0; pad < 40; pad += 1) {
      const text = 'x'.repeat(pad) + sentence.repeat(30);
      expect(cjkWords(text, 'ja')).toBe(runByRun(text, 'ja'));
      expect(withoutWordBreaks(cjkWords(text, 'ja'))).toBe(text);
    }
  });
});
