import type { IncomingHttpHeaders } from 'node:http';
import type { ReplayAddresses } from '../replay-addresses.js';
import type { Reply } from '../send-reply.js';

/**
 * CORS between the archived sites' own hosts: a page of site A that fetches JSON captured from site B
 * crosses origins in replay as it did live, so B's host answers A's host, and only a replay host of
 * this server: any other Origin (a website open in the same browser, `null` from a sandboxed or
 * redirected request) gets no CORS header, so it reads nothing. No credentials: replayed answers
 * depend on no cookie.
 */
export function corsHeaders(addresses: ReplayAddresses, self: string, origin: string | undefined): Record<string, string> {
  if (origin === undefined || origin === self || !addresses.isSiteOrigin(origin)) return { vary: 'Origin' };
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': '*', vary: 'Origin' };
}

/** Header names a preflight may ask for: HTTP tokens, comma-separated. */
const HEADER_LIST = /^[!#$%&'*+\-.^_`|~0-9a-z]+(\s*,\s*[!#$%&'*+\-.^_`|~0-9a-z]+)*$/i;

/** The answer to a preflight from another replay host: the methods replay answers, the headers asked for. */
export function preflight(headers: IncomingHttpHeaders): Reply {
  const asked = headers['access-control-request-headers'];
  return {
    status: 204,
    headers: {
      'access-control-allow-methods': 'GET, HEAD, POST',
      ...(asked && HEADER_LIST.test(asked) ? { 'access-control-allow-headers': asked } : {}),
      'access-control-max-age': '600',
    },
    body: Buffer.alloc(0),
  };
}
