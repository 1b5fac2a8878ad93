/** Text toolkit: word segmentation of Chinese and Japanese runs for the word index. Pure: no storage, no HTML parser. */
export { cjkWords, cjkLocaleOf, withoutWordBreaks, WORD_BREAK } from './cjk-words.js';
