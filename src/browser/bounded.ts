/** Settles as `work` does, or with `fallback` after `ms`: a page that stops answering cannot hold a render. */
export async function bounded<T, F>(work: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, ms));
  });
  // A late rejection of `work` is expected once the page is gone.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export const TIMED_OUT = Symbol('timed out');
