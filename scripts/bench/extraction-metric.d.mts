/** [tp, fp, fn] of one page, normalised to sum 1 (all 0 when both texts are empty). */
export type TpFpFn = [number, number, number];

export declare function tokenize(text: string | null | undefined): string[];
/** Shingles of n tokens, each joined with U+0000. */
export declare function ngrams(text: string, n?: number): string[];
export declare function shingleMatching(truth: string, pred: string, n?: number): TpFpFn;
export declare function precisionScore(tp: number, fp: number, fn: number): number;
export declare function recallScore(tp: number, fp: number, fn: number): number;
export declare function accuracy(truth: string, pred: string): 0 | 1;
export declare function metricsFromTpFpFns(rows: TpFpFn[]): { f1: number; precision: number; recall: number };

export interface Evaluation {
  f1: number;
  precision: number;
  recall: number;
  accuracy: number;
  f1_std: number;
  precision_std: number;
  recall_std: number;
  accuracy_std: number;
  rows: TpFpFn[];
  accuracies: number[];
}
export declare function evaluate(
  pages: Array<{ truth: string; pred: string }>,
  options?: { nBootstrap?: number; seed?: number },
): Evaluation;
