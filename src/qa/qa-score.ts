/** What a replay was measured by; a measure that could not be taken is null. */
export interface QaMeasures {
  /** Share of the stored screenshot's pixels drawn otherwise in replay; null without a screenshot. */
  pixelDiff: number | null;
  /** Similarity of the replay's text to the stored text; null without stored text. */
  textMatch: number | null;
  resourcesLoaded: number;
  resourcesFailed: number;
}

/** How much each measure weighs in a score: what a reader sees and reads twice what loaded behind it. */
export const SCORE_WEIGHTS = { pixels: 2, text: 2, resources: 1 } as const;

/**
 * A replay's score, 0..1: the weighted mean of the measures present, each as a share of good:
 * 1 - pixelDiff (weight 2), textMatch (2), and the share of the replay's requests that loaded (1;
 * 1 when it made none). A page without a screenshot (a crawl without --browser) is scored on its
 * text and resources alone.
 */
export function qaScore(measures: QaMeasures): number {
  const parts: [number, number][] = [];
  if (measures.pixelDiff !== null) parts.push([1 - measures.pixelDiff, SCORE_WEIGHTS.pixels]);
  if (measures.textMatch !== null) parts.push([measures.textMatch, SCORE_WEIGHTS.text]);
  const requests = measures.resourcesLoaded + measures.resourcesFailed;
  parts.push([requests === 0 ? 1 : measures.resourcesLoaded / requests, SCORE_WEIGHTS.resources]);
  const weight = parts.reduce((sum, [, w]) => sum + w, 0);
  return Math.min(1, Math.max(0, parts.reduce((sum, [value, w]) => sum + value * w, 0) / weight));
}
