/** What yargs keeps of its parser, beyond its typings: the usage object that renders help. */
interface YargsInternals {
  getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } };
}

/**
 * yargs renders a command's whole help as the command's handler starts, to
 * print it should the command then fail. This CLI never prints help on a
 * failure (`.fail` throws one line instead), and the rendering measures every
 * flag's text, grapheme by grapheme: 20 to 40 ms before a crawl's first
 * request. `--help` itself renders as before.
 */
export function skipHelpCache(parser: unknown): void {
  const usage = (parser as YargsInternals).getInternalMethods?.().getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}
