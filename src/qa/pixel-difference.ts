/** An image as RGBA bytes, four per pixel, row by row (what pngjs decodes to). */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * pixelmatch's default threshold: two colours differ when their perceived distance (YIQ, below) is
 * over 10% of the largest there is. Small enough for a changed word, large enough for a lossy
 * encoder's noise.
 */
const THRESHOLD = 0.1;
const MAX_DELTA = 35215 * THRESHOLD * THRESHOLD;

/** A channel over white, as an opaque pixel would show it. */
const blend = (channel: number, alpha: number) => 255 + ((channel - 255) * alpha) / 255;

/**
 * The share (0..1) of `expected`'s pixels that `actual` draws in another colour; pixels one image has
 * and the other has not (a size that differs) count as differing. One pass over the pixels, nothing
 * allocated: the perceived colour distance of pixelmatch (Kotsarenko and Ramos's YIQ weights), not
 * its anti-aliasing detection, which looks at eight neighbours per pixel. The two pictures compared
 * are made by the same Chromium and encoder at the same size, so an edge is drawn the same on both
 * unless the page differs there.
 */
export function pixelDifference(expected: Rgba, actual: Rgba): number {
  const width = Math.min(expected.width, actual.width);
  const height = Math.min(expected.height, actual.height);
  const total = expected.width * expected.height;
  if (total === 0) return 0;
  let differ = total - width * height;
  const a = expected.data;
  const b = actual.data;
  for (let y = 0; y < height; y += 1) {
    let i = y * expected.width * 4;
    let j = y * actual.width * 4;
    for (let x = 0; x < width; x += 1, i += 4, j += 4) {
      if (a[i] === b[j] && a[i + 1] === b[j + 1] && a[i + 2] === b[j + 2] && a[i + 3] === b[j + 3]) continue;
      const r1 = blend(a[i]!, a[i + 3]!);
      const g1 = blend(a[i + 1]!, a[i + 3]!);
      const b1 = blend(a[i + 2]!, a[i + 3]!);
      const r2 = blend(b[j]!, b[j + 3]!);
      const g2 = blend(b[j + 1]!, b[j + 3]!);
      const b2 = blend(b[j + 2]!, b[j + 3]!);
      const dy = (r1 - r2) * 0.29889531 + (g1 - g2) * 0.58662247 + (b1 - b2) * 0.11448223;
      const di = (r1 - r2) * 0.59597799 - (g1 - g2) * 0.2741761 - (b1 - b2) * 0.32180189;
      const dq = (r1 - r2) * 0.21147017 - (g1 - g2) * 0.52261711 + (b1 - b2) * 0.31114694;
      if (0.5053 * dy * dy + 0.299 * di * di + 0.1957 * dq * dq > MAX_DELTA) differ += 1;
    }
  }
  return Math.min(1, differ / total);
}
