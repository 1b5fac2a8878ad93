/** The page's `<base href>` resolved, if it is an http(s) URL; browsers ignore a `javascript:` or `data:` base too. */
export function baseOf(base: string | undefined, pageUrl: string): string {
  if (base === undefined) return pageUrl;
  try {
    const resolved = new URL(base, pageUrl);
    return resolved.protocol === 'http:' || resolved.protocol === 'https:' ? resolved.href : pageUrl;
  } catch {
    return pageUrl;
  }
}
