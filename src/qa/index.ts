/**
 * The QA room: how faithfully an archive replays. Every page is replayed through crawlite's own serve
 * in Chromium and held against what the crawl stored (its screenshot, its text), and its score stored.
 */
export { runQa, type QaRunOptions, type QaRunResult } from './run-qa.js';
export { qaScore, SCORE_WEIGHTS, type QaMeasures } from './qa-score.js';
export { QaBrowserError } from './qa-errors.js';
