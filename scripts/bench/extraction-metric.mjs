// The article-extraction benchmark's metric (scrapinghub/article-extraction-benchmark, evaluate.py), ported line
// for line so our scores sit in its published table: 4-token shingles, per-page tp/fp/fn normalised to sum 1,
// precision and recall averaged over pages, F1 from those two means, bootstrap std over resampled pages.

import { prng } from './site.mjs';

// Python's re `\w` with re.UNICODE: letters (L*), numbers (N*) and `_`; combining marks split words there, so they
// do here. Checked code point by code point against Python 3.11 (Unicode 14): identical except for characters
// assigned after Unicode 14, which Node's newer tables know.
const TOKEN_RE = /[\p{L}\p{N}_]+/gu;

/** @param {string | null | undefined} text */
export function tokenize(text) {
  return (text || '').match(TOKEN_RE) ?? [];
}

/** evaluate.py's `_ngrams`: a text shorter than n tokens is one short shingle; an empty text has none. */
export function ngrams(text, n = 4) {
  const tokens = tokenize(text);
  const result = [];
  for (let i = 0; i < Math.max(1, tokens.length - n + 1); i++) {
    const shingle = tokens.slice(i, i + n);
    if (shingle.length > 0) result.push(shingle.join('\u0000'));
  }
  return result;
}

function countShingles(text, n) {
  const counts = new Map();
  for (const s of ngrams(text, n)) counts.set(s, (counts.get(s) ?? 0) + 1);
  return counts;
}

/**
 * evaluate.py's `string_shingle_matching`: [tp, fp, fn] over shingle multisets, normalised so that they sum to 1
 * (a long article weighs no more than a short one).
 * @returns {[number, number, number]}
 */
export function shingleMatching(truth, pred, n = 4) {
  const t = countShingles(truth, n);
  const p = countShingles(pred, n);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...t.keys(), ...p.keys()])) {
    const tc = t.get(key) ?? 0;
    const pc = p.get(key) ?? 0;
    tp += Math.min(tc, pc);
    fp += Math.max(0, pc - tc);
    fn += Math.max(0, tc - pc);
  }
  const s = tp + fp + fn;
  return s > 0 ? [tp / s, fp / s, fn / s] : [tp, fp, fn];
}

export function precisionScore(tp, fp, fn) {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

export function recallScore(tp, fp, fn) {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

/** evaluate.py's `get_accuracy`: 1 when the token sequences are identical. */
export function accuracy(truth, pred) {
  const a = tokenize(truth);
  const b = tokenize(pred);
  return a.length === b.length && a.every((x, i) => x === b[i]) ? 1 : 0;
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Sample standard deviation, as Python's statistics.stdev. */
function stdev(xs) {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/**
 * evaluate.py's `metrics_from_tp_fp_fns`: precision over pages that predicted something, recall over pages whose
 * truth has something, F1 = harmonic mean of those two means (not the mean of per-page F1).
 * @param {Array<[number, number, number]>} rows
 */
export function metricsFromTpFpFns(rows) {
  const precision = mean(rows.filter(([tp, fp]) => tp + fp > 0).map(([tp, fp, fn]) => precisionScore(tp, fp, fn)));
  const recall = mean(rows.filter(([tp, , fn]) => tp + fn > 0).map(([tp, fp, fn]) => recallScore(tp, fp, fn)));
  return { f1: (2 * precision * recall) / (precision + recall), precision, recall };
}

/**
 * evaluate.py's `evaluate`: per-page scores, the means, and each metric's std over `nBootstrap` resamples of pages.
 * @param {Array<{ truth: string, pred: string }>} pages
 */
export function evaluate(pages, { nBootstrap = 1000, seed = 1 } = {}) {
  const rows = pages.map(({ truth, pred }) => shingleMatching(truth, pred));
  const accuracies = pages.map(({ truth, pred }) => accuracy(truth, pred));
  const metrics = { ...metricsFromTpFpFns(rows), accuracy: mean(accuracies) };
  // evaluate.py's bootstrap is unseeded; ours repeats run to run.
  const random = prng(seed);
  const samples = { f1: [], precision: [], recall: [], accuracy: [] };
  const n = rows.length;
  for (let b = 0; b < nBootstrap; b++) {
    const idx = Array.from({ length: n }, () => Math.floor(random() * n));
    const m = metricsFromTpFpFns(idx.map((i) => rows[i]));
    samples.f1.push(m.f1);
    samples.precision.push(m.precision);
    samples.recall.push(m.recall);
    samples.accuracy.push(mean(idx.map((i) => accuracies[i])));
  }
  // A resample with no page that predicted anything has no precision (evaluate.py would stop on it): leave it out.
  const std = (k) => {
    const xs = samples[k].filter((x) => !Number.isNaN(x));
    return xs.length > 1 ? stdev(xs) : 0;
  };
  return {
    ...metrics,
    f1_std: std('f1'),
    precision_std: std('precision'),
    recall_std: std('recall'),
    accuracy_std: std('accuracy'),
    rows,
    accuracies,
  };
}
