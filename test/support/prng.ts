/** mulberry32: a tiny, well-mixed 32-bit PRNG; the same seed gives the same sequence. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` made-up lower-case words of `shortest` to `shortest + spread - 1` letters, drawn from `rand`. */
export function madeUpWords(rand: () => number, count: number, shortest: number, spread: number): string[] {
  const letter = () => String.fromCharCode(97 + Math.floor(rand() * 26));
  return Array.from({ length: count }, () => Array.from({ length: shortest + Math.floor(rand() * spread) }, letter).join(''));
}
