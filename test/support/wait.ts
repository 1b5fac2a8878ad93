export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `condition` holds, bounded in count and time; the error says what was awaited, and `detail()` if given. */
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 15_000, detail?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 20_000 && Date.now() < deadline; i += 1) {
    if (condition()) return;
    await sleep(5);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? ` (${detail()})` : ''}`);
}
