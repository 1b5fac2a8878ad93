import type { Reason } from '../pipeline/ports.js';
import type { BlockedRequest, RenderJob } from '../pipeline/renderer.js';
import { isLocalAddress, servedFromLocalNetwork } from './local-network.js';

/** What a rendered page may send unless writes are allowed: reads, and POST (forms, search APIs), captured as before. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS', 'POST']);

/** Why a page may not send `method`, or undefined: PUT, PATCH, DELETE and any other write reaches the site only when allowed. */
export function refusedMethod(method: string, allowWrites: boolean): Reason | undefined {
  if (allowWrites || READS.has(method.toUpperCase())) return undefined;
  return {
    code: 'write_refused',
    message: `a rendered page sent ${method.toUpperCase()}, which could change the site; refused (--browser-writes allows it)`,
  };
}

/**
 * Chromium's own services, which it asks from every fresh profile whatever the page does (the
 * on-device model manifest, account checks, network time): refused like anything else, but not
 * recorded as what a page asked for. A page's own requests to other Google hosts (fonts, APIs) are.
 */
const BROWSER_SERVICES = new Set([
  'update.googleapis.com',
  'accounts.google.com',
  'clients2.google.com',
  'clientservices.googleapis.com',
  'content-autofill.googleapis.com',
  'optimizationguide-pa.googleapis.com',
  'safebrowsing.googleapis.com',
  'android.clients.google.com',
  'redirector.gvt1.com',
  'edgedl.me.gvt1.com',
]);

/**
 * The network's rules for a browser crawl, which the guard proxy asks for every request and tunnel
 * Chromium opens: a destination is reached only while a page renders and only if the crawl admits
 * it, and a local address (loopback, private, link-local such as 169.254.169.254) only from a page
 * that itself came from one. What is refused is handed
 * to every page rendering at that moment, to be recorded as skipped with its reason.
 */
export class GuardRules {
  private readonly active = new Map<RenderJob, BlockedRequest[]>();
  /** Pages rendering now that came from a local address. */
  private localPages = 0;

  constructor(private readonly allowWrites: boolean) {}

  /** A page starts rendering; the function returned ends its turn and gives what was refused meanwhile. */
  enter(job: RenderJob): () => BlockedRequest[] {
    const local = servedFromLocalNetwork(job);
    if (local) this.localPages += 1;
    const refused: BlockedRequest[] = [];
    this.active.set(job, refused);
    let left = false;
    return () => {
      if (!left && local) this.localPages -= 1;
      left = true;
      this.active.delete(job);
      return refused;
    };
  }

  /** Why a request for a whole URL (plain http through the proxy) is refused, or undefined. */
  request(url: URL, method: string): Reason | undefined {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return { code: 'not_http', message: `${url.protocol} is not fetched by a crawl` };
    return refusedMethod(method, this.allowWrites) ?? this.admitted(url.href, url.host);
  }

  /** Why a tunnel (CONNECT host:port, for https and WebSockets) is refused, or undefined. */
  tunnel(hostname: string, port: number): Reason | undefined {
    const host = port === 443 ? hostname : `${hostname}:${port}`;
    // The scheme inside a tunnel is not told (https, wss, or ws through a proxy): either admitted will do.
    const https = this.admitted(`https://${host}/`, host);
    return https && this.admitted(`http://${host}/`, host);
  }

  /**
   * Why `hostname:port` may not be reached at `address` (what the proxy resolved it to), or undefined.
   * A local address is reached only from a page that itself came from one (a local site and its
   * neighbours the crawl admits, as a browser that loaded it would): a public page, or a public name
   * that resolves to a local address, never reaches loopback, the LAN or 169.254.169.254.
   */
  address(hostname: string, port: number, address: string): Reason | undefined {
    if (!isLocalAddress(address) || this.localPages > 0) return undefined;
    return { code: 'local_address', message: `${hostname}:${port} is at ${address}, a local address, and the page is not; refused` };
  }

  /** Hands a refusal to every page rendering now. */
  refused(url: string, reason: Reason): void {
    if (BROWSER_SERVICES.has(new URL(url).hostname)) return;
    for (const list of this.active.values()) if (list.length < 1000 && !list.some((seen) => seen.url === url)) list.push({ url, reason });
  }

  private admitted(url: string, host: string): Reason | undefined {
    if (this.active.size === 0)
      return { code: 'out_of_scope', message: `${host}: no page of the crawl was rendering (the browser's own traffic is refused)` };
    for (const job of this.active.keys()) {
      try {
        if (job.admits(url)) return undefined;
      } catch {
        // A URL the rules cannot read is not admitted.
      }
    }
    return { code: 'out_of_scope', message: `${host} is not a site a page of the crawl may load from; refused by crawlite's proxy` };
  }
}
