import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

// Who may steer the crawl: the live page itself, and nothing else. Controls are POSTs with a JSON body
// and the page's token in a header, so a form (of a page elsewhere or of a replayed one) cannot send one,
// and a script elsewhere can send one only after a CORS preflight that this server never answers. Each
// of the checks below would stop them alone; they are all made, in case a browser gets one wrong.

export const TOKEN_HEADER = 'x-crawlite-token';

const sameToken = (sent: string, token: string) => {
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The live page's addresses answer only the UI's own names (not the replay page's, which replayed sites share a site with). */
export function refusedHost(headers: IncomingHttpHeaders, hosts: ReadonlySet<string> | undefined): string | undefined {
  const host = (headers.host ?? '').toLowerCase();
  if (hosts && !hosts.has(host))
    return `a request to ${host.slice(0, 100) || 'no host'}: open the live page at the address crawlite serve printed`;
  return undefined;
}

/** Why a control request is refused (403), or undefined when it comes from the live page. */
export function refusedControl(headers: IncomingHttpHeaders, token: string, hosts: ReadonlySet<string> | undefined): string | undefined {
  const wrongHost = refusedHost(headers, hosts);
  if (wrongHost) return wrongHost;
  const origin = headers.origin;
  if (origin === undefined) return 'a request without an Origin header';
  if (origin !== `http://${headers.host ?? ''}`) return `a request from ${origin.slice(0, 100)}`;
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return `a ${String(site).slice(0, 20)} request`;
  const sent = headers[TOKEN_HEADER];
  if (typeof sent !== 'string' || !sameToken(sent, token)) return 'a request without the live page’s token';
  return undefined;
}
